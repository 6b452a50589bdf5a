//! A machine whose Vulkan loader finds no driver: the instance still comes
//! up, lists no device, and says why. Its own test binary, because it
//! changes the loader's environment for the whole process.

use ferrocl_vk::Instance;

#[test]
fn no_driver_means_no_devices_and_a_note() {
    // Set before any Vulkan call of this process (the only test here).
    std::env::set_var("VK_ICD_FILENAMES", "/nonexistent/ferrocl-no-driver.json");
    std::env::set_var("VK_DRIVER_FILES", "/nonexistent/ferrocl-no-driver.json");
    let instance = Instance::new();
    assert!(instance.devices().is_empty());
    assert!(!instance.notes().is_empty(), "a note says why");
    eprintln!("notes: {:?}", instance.notes());
    assert!(instance.open_device(0).is_err());
}
