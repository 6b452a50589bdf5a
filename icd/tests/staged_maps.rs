//! The checks of maps.rs with `FERROCL_DIRECT_ACCESS=off`, set before the
//! process's first OpenCL call: every map (and read) goes through a
//! staging buffer, as on a discrete GPU, also on lavapipe.
//!
//! The Vulkan validation layer is on for the whole process; each test ends
//! by checking that it reported nothing.

mod common;
mod map_checks;

use common::rlib::Env;
use std::sync::Once;

/// A context and queue, with `FERROCL_DIRECT_ACCESS=off` set first.
fn env() -> Env {
    static STAGED: Once = Once::new();
    STAGED.call_once(|| std::env::set_var("FERROCL_DIRECT_ACCESS", "off"));
    Env::new()
}

#[test]
fn maps_order_with_kernels() {
    map_checks::maps_order_with_kernels(env(), false);
}

#[test]
fn sub_buffer_maps_agree() {
    map_checks::sub_buffer_maps_agree(env(), false);
}

#[test]
fn a_map_behind_a_user_event_returns_at_once() {
    map_checks::a_map_behind_a_user_event_returns_at_once(env(), false);
}
