//! `ferrocl-cts`: runs an already-built Khronos OpenCL-CTS against ferrocl.

fn main() {
    let code = ferrocl_cts::cli::main_with_args(std::env::args_os().skip(1).collect());
    std::process::exit(code);
}
