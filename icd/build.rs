//! Links libferrocl.so so that its references to its own `cl*` functions
//! bind to its own definitions, not to an ICD loader's functions of the same
//! names that are already loaded in the process (see src/dispatch.rs).

fn main() {
    println!("cargo:rustc-cdylib-link-arg=-Wl,-Bsymbolic-functions");
}
