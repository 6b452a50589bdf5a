//! cl_khr_kernel_clock: the clock built-ins build to `OpReadClockKHR` at
//! the scope each names, and need that scope's feature.

mod common;

use ferrocl_compiler::TargetCaps;

fn clock_caps() -> TargetCaps {
    TargetCaps {
        extensions: vec!["cl_khr_kernel_clock".to_string()],
        features: vec![
            "__opencl_c_kernel_clock_scope_device".to_string(),
            "__opencl_c_kernel_clock_scope_sub_group".to_string(),
        ],
        ..TargetCaps::default()
    }
}

#[test]
fn device_and_sub_group_clocks_read_at_their_scopes() {
    let program = common::build_caps(
        r#"
        kernel void k(global ulong *o, global uint2 *h) {
            size_t i = get_global_id(0);
            o[2 * i] = clock_read_device();
            o[2 * i + 1] = clock_read_sub_group();
            h[2 * i] = clock_read_hilo_device();
            h[2 * i + 1] = clock_read_hilo_sub_group();
        }"#,
        &clock_caps(),
    );
    let text = common::disassemble(&program.spirv);
    assert!(text.contains("OpCapability ShaderClockKHR"), "{text}");
    assert!(
        text.contains("OpExtension \"SPV_KHR_shader_clock\""),
        "{text}"
    );
    assert_eq!(text.matches("OpReadClockKHR").count(), 4, "{text}");
}

#[test]
fn each_clock_needs_its_scope() {
    common::assert_build_errors(
        &clock_caps(),
        &[
            (
                "kernel void k(global ulong *o) { o[0] = clock_read_work_group(); }",
                "needs cl_khr_kernel_clock (__opencl_c_kernel_clock_scope_work_group)",
            ),
            (
                "kernel void k(global ulong *o) { o[0] = clock_read_device(1); }",
                "takes 0 arguments",
            ),
        ],
    );
    let log = common::build_error("kernel void k(global ulong *o) { o[0] = clock_read_device(); }");
    assert!(log.contains("needs cl_khr_kernel_clock"), "{log}");
}
