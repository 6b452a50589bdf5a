//! cl_khr_extended_bit_ops: every integer type and vector width builds to
//! a module `spirv-val` accepts; the functions need the extension and
//! integer arguments.

mod common;

use ferrocl_compiler::TargetCaps;

fn bit_ops_caps() -> TargetCaps {
    TargetCaps {
        extensions: vec!["cl_khr_extended_bit_ops".to_string()],
        ..TargetCaps::default()
    }
}

#[test]
fn every_type_and_width_validates() {
    let mut src = String::from("#ifndef cl_khr_extended_bit_ops\n#error no macro\n#endif\n");
    for s in [
        "char", "uchar", "short", "ushort", "int", "uint", "long", "ulong",
    ] {
        for n in ["", "2", "3", "4", "8", "16"] {
            src.push_str(&format!(
                "kernel void k_{s}{n}(global {s}{n} *p, uint o, uint c) {{
                    p[0] = bitfield_insert(p[1], p[2], o, c) + bit_reverse(p[3])
                         + as_{s}{n}(bitfield_extract_signed(p[4], o, c))
                         + as_{s}{n}(bitfield_extract_unsigned(p[5], 3u, 2u));
                }}\n"
            ));
        }
    }
    let program = common::build_caps(&src, &bit_ops_caps());
    assert_eq!(program.kernels.len(), 48);
}

#[test]
fn the_functions_need_the_extension_and_integers() {
    let log = common::build_error("kernel void k(global uint *p) { p[0] = bit_reverse(p[1]); }");
    assert!(log.contains("needs cl_khr_extended_bit_ops"), "{log}");
    common::assert_build_errors(
        &bit_ops_caps(),
        &[
            (
                "kernel void k(global float *p) { p[0] = bit_reverse(p[1]); }",
                "takes integer arguments",
            ),
            (
                "kernel void k(global uint *p) { p[0] = bitfield_insert(p[1], p[2], 3u); }",
                "takes 4 arguments",
            ),
            (
                "kernel void k(global uint *p) { p[0] = bitfield_extract_signed(p[1], 3u); }",
                "takes 3 arguments",
            ),
        ],
    );
}
