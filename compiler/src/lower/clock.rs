//! cl_khr_kernel_clock: `clock_read_{device,work_group,sub_group}` and
//! their `clock_read_hilo_*` forms as SPIR-V's `OpReadClockKHR`
//! (SPV_KHR_shader_clock) at the scope each names. Each scope needs its
//! `__opencl_c_kernel_clock_scope_*` feature, which the runtime reports
//! for the clocks the device's Vulkan reads (no Vulkan device has a
//! work-group clock).

use super::*;

/// The clock a built-in's name reads: (the feature it needs, the SPIR-V
/// scope, whether it answers a `uint2` of low and high words).
pub(super) fn clock_read(name: &str) -> Option<(&'static str, u32, bool)> {
    let (rest, hilo) = match name.strip_prefix("clock_read_hilo_") {
        Some(rest) => (rest, true),
        None => (name.strip_prefix("clock_read_")?, false),
    };
    let (feature, scope) = match rest {
        "device" => ("__opencl_c_kernel_clock_scope_device", SCOPE_DEVICE),
        "work_group" => ("__opencl_c_kernel_clock_scope_work_group", SCOPE_WORKGROUP),
        "sub_group" => ("__opencl_c_kernel_clock_scope_sub_group", SCOPE_SUBGROUP),
        _ => return None,
    };
    Some((feature, scope, hilo))
}

impl<'a> Lowerer<'a> {
    pub(super) fn read_clock(&mut self, name: &str, span: Span) -> R<Val> {
        let (feature, scope, hilo) = clock_read(name)?;
        self.require_feature("cl_khr_kernel_clock", feature, name, span)?;
        self.m.capability(Capability::ShaderClockKHR);
        self.m.extensions.insert("SPV_KHR_shader_clock".into());
        let t = if hilo {
            Type::Vector(Scalar::UInt, 2)
        } else {
            Type::ULONG
        };
        let ty = self.sty(&t);
        let scope = self.u32c(scope);
        Some(Val::new(self.op(Op::ReadClockKHR, ty, &[scope]), t))
    }
}
