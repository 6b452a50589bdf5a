//! `ferrocl`: the command-line companion of the ferrocl OpenCL
//! implementation: device information, offline compilation, ICD
//! installation, a demo through the system OpenCL loader, and a benchmark
//! beside every other OpenCL platform on the machine.

mod args;
mod bench;
mod compile;
mod demo;
mod info;
mod install;
mod loader;

use args::Command;
use std::process::ExitCode;

fn run(command: Command) -> Result<(), String> {
    match command {
        Command::Help => {
            print!("{}", args::USAGE);
            Ok(())
        }
        Command::Info => info::run(),
        Command::Compile(c) => compile::run(&c),
        Command::Install(i) => {
            let lib = match i.lib {
                Some(lib) => lib,
                None => install::library_next_to_executable()?,
            };
            let dir = i
                .prefix
                .unwrap_or_else(|| install::SYSTEM_VENDORS_DIR.into());
            let (file, line) = install::write_icd(&dir, &lib)?;
            println!("wrote {}: {line}", file.display());
            Ok(())
        }
        Command::Demo(d) => demo::run(&d),
        Command::Bench(b) => bench::run(&b),
    }
}

fn main() -> ExitCode {
    let words: Vec<String> = std::env::args().skip(1).collect();
    let command = match args::parse(&words) {
        Ok(command) => command,
        Err(message) => {
            eprintln!("ferrocl: {message}\n");
            eprint!("{}", args::USAGE);
            return ExitCode::from(2);
        }
    };
    match run(command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("ferrocl: {message}");
            ExitCode::FAILURE
        }
    }
}
