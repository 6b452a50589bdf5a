//! Map and unmap as applications use them, with the runtime's defaults:
//! on lavapipe, whose buffers are host memory, every buffer map is the
//! buffer's own memory (map_checks says what each check shows).
//!
//! The Vulkan validation layer is on for the whole process; each test ends
//! by checking that it reported nothing.

mod common;
mod map_checks;

use common::rlib::Env;
use map_checks::unified_memory;

#[test]
fn maps_order_with_kernels() {
    map_checks::maps_order_with_kernels(Env::new(), unified_memory());
}

#[test]
fn sub_buffer_maps_agree() {
    map_checks::sub_buffer_maps_agree(Env::new(), unified_memory());
}

#[test]
fn a_map_behind_a_user_event_returns_at_once() {
    map_checks::a_map_behind_a_user_event_returns_at_once(Env::new(), unified_memory());
}
