//! The command line of `ferrocl`, parsed by hand: a subcommand followed by
//! its options, `--name value` or `--name=value`.

use std::path::PathBuf;

pub const USAGE: &str = "\
ferrocl: OpenCL 3.0 on Vulkan

usage:
  ferrocl info
      the devices ferrocl sees, and why any Vulkan device was left out
  ferrocl compile FILE.cl [-o OUT.spv] [--options \"...\"] [--device N] [--disasm]
      compile OpenCL C to SPIR-V offline; prints the build log and the
      kernels with their arguments; --device N compiles for the capabilities
      of device N of `ferrocl info` instead of a baseline Vulkan 1.2 device
  ferrocl install [--prefix DIR] [--lib PATH]
      write ferrocl.icd (naming PATH, by default the libferrocl.so next to
      this program) into DIR (default /etc/OpenCL/vendors)
  ferrocl demo [--size N]
      run a few kernels through the system OpenCL loader (libOpenCL.so.1)
      and report correctness and speed; N is the vector length (default 16M)
  ferrocl bench [--quick] [--json] [--json-file PATH] [--only LIST]
                [--repeats N] [--mem SIZE] [--threads N] [--platform NAME]
                [--device NAME]
      run the same workloads (bandwidth, compute, transfer, enqueue, build,
      sgemm, reduction, scan, nbody, conv2d, radix; `app` names the last six)
      on every OpenCL device the loader sees and print them side by side
      with ferrocl/other ratios; --quick uses sizes for a CPU device
      (lavapipe), --mem sets the bandwidth and transfer buffer size,
      --threads the enqueue threads (default 4), --platform keeps ferrocl
      and the platforms whose name contains NAME, --device the devices
      whose name contains NAME; --json-file writes the JSON beside the table
  ferrocl --help
";

/// Vector length of `ferrocl demo` when `--size` is not given.
pub const DEFAULT_DEMO_SIZE: usize = 1 << 24;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Help,
    Info,
    Compile(CompileArgs),
    Install(InstallArgs),
    Demo(DemoArgs),
    Bench(BenchArgs),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompileArgs {
    pub input: PathBuf,
    pub output: Option<PathBuf>,
    pub options: String,
    pub device: Option<usize>,
    pub disasm: bool,
}

impl CompileArgs {
    /// Where the SPIR-V goes: `-o`, or the input with its extension
    /// replaced by `.spv`.
    pub fn output_path(&self) -> PathBuf {
        self.output
            .clone()
            .unwrap_or_else(|| self.input.with_extension("spv"))
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstallArgs {
    pub prefix: Option<PathBuf>,
    pub lib: Option<PathBuf>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DemoArgs {
    pub size: usize,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BenchArgs {
    pub quick: bool,
    pub json: bool,
    /// Workload names; empty runs all.
    pub only: Vec<String>,
    pub repeats: Option<usize>,
    pub mem: Option<usize>,
    pub threads: Option<usize>,
    pub platform: Option<String>,
    pub device: Option<String>,
    pub json_file: Option<PathBuf>,
}

/// Splits `--name=value` into its two halves; `-o`-style options keep the
/// whole word as the name.
fn split_option(word: &str) -> (&str, Option<&str>) {
    if word.starts_with("--") {
        if let Some((name, value)) = word.split_once('=') {
            return (name, Some(value));
        }
    }
    (word, None)
}

/// The words after the program name.
pub fn parse(args: &[String]) -> Result<Command, String> {
    let Some(sub) = args.first() else {
        return Ok(Command::Help);
    };
    let mut rest = args[1..].iter();
    if args.iter().any(|a| a == "--help" || a == "-h") {
        return Ok(Command::Help);
    }
    // The value of an option: inline after '=' or the next word.
    fn value<'a>(
        name: &str,
        inline: Option<&'a str>,
        rest: &mut impl Iterator<Item = &'a String>,
    ) -> Result<&'a str, String> {
        match inline {
            Some(v) => Ok(v),
            None => rest
                .next()
                .map(String::as_str)
                .ok_or_else(|| format!("{name} needs a value")),
        }
    }
    match sub.as_str() {
        "help" => Ok(Command::Help),
        "info" => match rest.next() {
            None => Ok(Command::Info),
            Some(extra) => Err(format!("info takes no arguments (got {extra:?})")),
        },
        "compile" => {
            let mut input = None;
            let mut compile = CompileArgs {
                input: PathBuf::new(),
                output: None,
                options: String::new(),
                device: None,
                disasm: false,
            };
            while let Some(word) = rest.next() {
                let (name, inline) = split_option(word);
                match name {
                    "-o" | "--output" => {
                        compile.output = Some(value(name, inline, &mut rest)?.into())
                    }
                    "--options" => compile.options = value(name, inline, &mut rest)?.to_string(),
                    "--device" => {
                        let v = value(name, inline, &mut rest)?;
                        compile.device =
                            Some(v.parse().map_err(|_| {
                                format!("--device needs a device number, got {v:?}")
                            })?);
                    }
                    "--disasm" if inline.is_none() => compile.disasm = true,
                    _ if word.starts_with('-') && word.len() > 1 => {
                        return Err(format!("compile: unknown option {word:?}"));
                    }
                    _ if input.is_none() => input = Some(PathBuf::from(word)),
                    _ => return Err(format!("compile takes one input file (got {word:?} too)")),
                }
            }
            compile.input = input.ok_or("compile needs an input file")?;
            Ok(Command::Compile(compile))
        }
        "install" => {
            let mut install = InstallArgs {
                prefix: None,
                lib: None,
            };
            while let Some(word) = rest.next() {
                let (name, inline) = split_option(word);
                match name {
                    "--prefix" => install.prefix = Some(value(name, inline, &mut rest)?.into()),
                    "--lib" => install.lib = Some(value(name, inline, &mut rest)?.into()),
                    _ => return Err(format!("install: unknown argument {word:?}")),
                }
            }
            Ok(Command::Install(install))
        }
        "demo" => {
            let mut demo = DemoArgs {
                size: DEFAULT_DEMO_SIZE,
            };
            while let Some(word) = rest.next() {
                let (name, inline) = split_option(word);
                match name {
                    "--size" => {
                        let v = value(name, inline, &mut rest)?;
                        demo.size = parse_size(v)
                            .ok_or_else(|| format!("--size needs a positive count, got {v:?}"))?;
                    }
                    _ => return Err(format!("demo: unknown argument {word:?}")),
                }
            }
            Ok(Command::Demo(demo))
        }
        "bench" => {
            let mut bench = BenchArgs::default();
            let count = |name: &str, v: &str| {
                parse_size(v).ok_or_else(|| format!("{name} needs a positive count, got {v:?}"))
            };
            while let Some(word) = rest.next() {
                let (name, inline) = split_option(word);
                match name {
                    "--quick" if inline.is_none() => bench.quick = true,
                    "--json" if inline.is_none() => bench.json = true,
                    "--only" => {
                        bench.only.extend(
                            value(name, inline, &mut rest)?
                                .split(',')
                                .filter(|w| !w.is_empty())
                                .map(str::to_string),
                        );
                    }
                    "--repeats" => {
                        bench.repeats = Some(count(name, value(name, inline, &mut rest)?)?)
                    }
                    "--mem" => bench.mem = Some(count(name, value(name, inline, &mut rest)?)?),
                    "--threads" => {
                        bench.threads = Some(count(name, value(name, inline, &mut rest)?)?)
                    }
                    "--platform" => {
                        bench.platform = Some(value(name, inline, &mut rest)?.to_string())
                    }
                    "--device" => bench.device = Some(value(name, inline, &mut rest)?.to_string()),
                    "--json-file" => bench.json_file = Some(value(name, inline, &mut rest)?.into()),
                    _ => return Err(format!("bench: unknown argument {word:?}")),
                }
            }
            Ok(Command::Bench(bench))
        }
        other => Err(format!("unknown command {other:?}")),
    }
}

/// A positive count, with an optional binary suffix: `1000`, `64K`, `16M`.
fn parse_size(text: &str) -> Option<usize> {
    let (digits, scale) = match text.as_bytes().last()? {
        b'k' | b'K' => (&text[..text.len() - 1], 1usize << 10),
        b'm' | b'M' => (&text[..text.len() - 1], 1 << 20),
        _ => (text, 1),
    };
    let n: usize = digits.parse().ok()?;
    n.checked_mul(scale).filter(|&n| n > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(words: &[&str]) -> Result<Command, String> {
        parse(&words.iter().map(|w| w.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn no_arguments_or_help_print_usage() {
        assert_eq!(p(&[]), Ok(Command::Help));
        assert_eq!(p(&["--help"]), Ok(Command::Help));
        assert_eq!(p(&["-h"]), Ok(Command::Help));
        assert_eq!(p(&["help"]), Ok(Command::Help));
        assert_eq!(p(&["compile", "--help"]), Ok(Command::Help));
    }

    #[test]
    fn info() {
        assert_eq!(p(&["info"]), Ok(Command::Info));
        assert!(p(&["info", "extra"]).is_err());
    }

    #[test]
    fn compile_with_every_option() {
        let Ok(Command::Compile(c)) = p(&[
            "compile",
            "k.cl",
            "-o",
            "out.spv",
            "--options",
            "-D N=4 -cl-mad-enable",
            "--device",
            "1",
            "--disasm",
        ]) else {
            panic!("not a compile command")
        };
        assert_eq!(c.input, PathBuf::from("k.cl"));
        assert_eq!(c.output, Some(PathBuf::from("out.spv")));
        assert_eq!(c.options, "-D N=4 -cl-mad-enable");
        assert_eq!(c.device, Some(1));
        assert!(c.disasm);
        assert_eq!(c.output_path(), PathBuf::from("out.spv"));
    }

    #[test]
    fn compile_inline_values_and_default_output() {
        let Ok(Command::Compile(c)) = p(&["compile", "--options=-DX=1", "dir/k.cl"]) else {
            panic!("not a compile command")
        };
        assert_eq!(c.options, "-DX=1");
        assert_eq!(c.output, None);
        assert_eq!(c.output_path(), PathBuf::from("dir/k.spv"));
        assert!(!c.disasm);
        assert_eq!(c.device, None);
    }

    #[test]
    fn compile_errors() {
        assert!(p(&["compile"]).unwrap_err().contains("input"));
        assert!(p(&["compile", "a.cl", "b.cl"]).is_err());
        assert!(p(&["compile", "a.cl", "-o"])
            .unwrap_err()
            .contains("needs a value"));
        assert!(p(&["compile", "a.cl", "--device", "x"]).is_err());
        assert!(p(&["compile", "a.cl", "--frobnicate"]).is_err());
        assert!(p(&["compile", "a.cl", "--disasm=yes"]).is_err());
    }

    #[test]
    fn install_options() {
        assert_eq!(
            p(&["install"]),
            Ok(Command::Install(InstallArgs {
                prefix: None,
                lib: None
            }))
        );
        assert_eq!(
            p(&["install", "--prefix", "/tmp/v", "--lib=/opt/libferrocl.so"]),
            Ok(Command::Install(InstallArgs {
                prefix: Some("/tmp/v".into()),
                lib: Some("/opt/libferrocl.so".into())
            }))
        );
        assert!(p(&["install", "--prefix"]).is_err());
        assert!(p(&["install", "somewhere"]).is_err());
    }

    #[test]
    fn demo_sizes() {
        assert_eq!(
            p(&["demo"]),
            Ok(Command::Demo(DemoArgs {
                size: DEFAULT_DEMO_SIZE
            }))
        );
        assert_eq!(
            p(&["demo", "--size", "1000"]),
            Ok(Command::Demo(DemoArgs { size: 1000 }))
        );
        assert_eq!(
            p(&["demo", "--size=64K"]),
            Ok(Command::Demo(DemoArgs { size: 65536 }))
        );
        assert_eq!(
            p(&["demo", "--size", "2m"]),
            Ok(Command::Demo(DemoArgs { size: 2 << 20 }))
        );
        assert!(p(&["demo", "--size", "0"]).is_err());
        assert!(p(&["demo", "--size", "-5"]).is_err());
        assert!(p(&["demo", "--size", "lots"]).is_err());
        assert!(p(&["demo", "--size"]).is_err());
    }

    #[test]
    fn bench_options() {
        assert_eq!(p(&["bench"]), Ok(Command::Bench(BenchArgs::default())));
        let Ok(Command::Bench(b)) = p(&[
            "bench",
            "--quick",
            "--json",
            "--only",
            "sgemm,radix",
            "--only=build",
            "--repeats",
            "3",
            "--mem=64M",
            "--threads",
            "8",
            "--platform",
            "NVIDIA",
            "--device=H100",
            "--json-file",
            "out.json",
        ]) else {
            panic!("not a bench command")
        };
        assert!(b.quick && b.json);
        assert_eq!(b.only, vec!["sgemm", "radix", "build"]);
        assert_eq!(b.repeats, Some(3));
        assert_eq!(b.mem, Some(64 << 20));
        assert_eq!(b.threads, Some(8));
        assert_eq!(b.platform.as_deref(), Some("NVIDIA"));
        assert_eq!(b.device.as_deref(), Some("H100"));
        assert_eq!(b.json_file, Some(PathBuf::from("out.json")));
        assert!(p(&["bench", "--repeats", "0"]).is_err());
        assert!(p(&["bench", "--quick=yes"]).is_err());
        assert!(p(&["bench", "--frobnicate"]).is_err());
    }

    #[test]
    fn unknown_command() {
        assert!(p(&["frobnicate"]).unwrap_err().contains("unknown command"));
    }
}
