//! Arbitrary bytes as a cached build (`CompiledProgram::from_bytes`, what
//! the runtime's on-disk cache reads): refused or read, never a panic, and
//! whatever reads back writes out as the same bytes.
#![no_main]

use ferrocl_compiler::CompiledProgram;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Some(program) = CompiledProgram::from_bytes(data) {
        assert_eq!(program.to_bytes(), data);
    }
});
