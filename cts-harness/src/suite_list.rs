//! The CTS's test lists (`opencl_conformance_tests_*.csv`).
//!
//! Each line names one run of one CTS binary: `name,path/to/binary args...`,
//! the path relative to the CTS's `test_conformance` directory. A line may
//! also start with a `CL_DEVICE_TYPE_*` field, in which case the CTS only runs
//! it when that device type was asked for. `#` starts a comment line.

use std::fmt;

/// One line of a test list: a CTS binary and the arguments it runs with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SuiteEntry {
    /// The first field, e.g. `Images (Kernel pitch)`; unique within a list.
    pub name: String,
    /// The `CL_DEVICE_TYPE_*` a device-specific line is limited to.
    pub device_type: Option<String>,
    /// The binary, relative to `test_conformance`, e.g. `basic/test_basic`.
    pub binary: String,
    /// Arguments after the binary: suite options and test-name selections.
    pub args: Vec<String>,
    /// 1-based line in the list file.
    pub line: usize,
}

impl SuiteEntry {
    /// Whether this line runs when the given device types were asked for
    /// (lines without a device type always run).
    pub fn runs_for(&self, device_types: &[String]) -> bool {
        match &self.device_type {
            None => true,
            Some(t) => device_types.iter().any(|d| d == t),
        }
    }

    /// The directory that groups a binary's suites, e.g. `basic` for
    /// `basic/test_basic`; `--suites` accepts it as a short name.
    pub fn directory(&self) -> &str {
        self.binary.split('/').next().unwrap_or(&self.binary)
    }

    /// The binary's file name, e.g. `test_basic`.
    pub fn binary_name(&self) -> &str {
        self.binary.rsplit('/').next().unwrap_or(&self.binary)
    }
}

/// A line of a test list that could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListError {
    pub line: usize,
    pub message: String,
}

impl fmt::Display for ListError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for ListError {}

/// Reads a whole test list. Names that repeat get ` #2`, ` #3`... so that
/// every entry can be a key of the results.
pub fn parse_suite_list(text: &str) -> Result<Vec<SuiteEntry>, ListError> {
    let mut entries: Vec<SuiteEntry> = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let line_no = index + 1;
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split(',').collect();
        let (device_type, name, command) =
            if fields.len() >= 3 && fields[0].trim().starts_with("CL_DEVICE_TYPE_") {
                (
                    Some(fields[0].trim().to_string()),
                    fields[1].trim(),
                    fields[2..].join(","),
                )
            } else if fields.len() >= 2 {
                (None, fields[0].trim(), fields[1..].join(","))
            } else {
                return Err(ListError {
                    line: line_no,
                    message: format!("expected `name,command`, found `{line}`"),
                });
            };
        if name.is_empty() {
            return Err(ListError {
                line: line_no,
                message: "empty suite name".to_string(),
            });
        }
        let mut words = command.split_whitespace();
        let Some(binary) = words.next() else {
            return Err(ListError {
                line: line_no,
                message: format!("suite `{name}` has no command"),
            });
        };
        let mut unique = name.to_string();
        let mut n = 1;
        while entries.iter().any(|e| e.name == unique) {
            n += 1;
            unique = format!("{name} #{n}");
        }
        entries.push(SuiteEntry {
            name: unique,
            device_type,
            binary: binary.to_string(),
            args: words.map(str::to_string).collect(),
            line: line_no,
        });
    }
    Ok(entries)
}

/// Accepts `cpu`, `gpu`, `accelerator`, `default`, `all` or a full
/// `CL_DEVICE_TYPE_*` name and returns the full name.
pub fn normalize_device_type(text: &str) -> Option<String> {
    let upper = text.trim().to_ascii_uppercase();
    let short = upper.strip_prefix("CL_DEVICE_TYPE_").unwrap_or(&upper);
    match short {
        "CPU" | "GPU" | "ACCELERATOR" | "DEFAULT" | "ALL" | "CUSTOM" => {
            Some(format!("CL_DEVICE_TYPE_{short}"))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> String {
        std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/sample_list.csv"
        ))
        .unwrap()
    }

    #[test]
    fn reads_plain_and_device_specific_lines() {
        let entries = parse_suite_list(&sample()).unwrap();
        let names: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "Compute Info",
                "Basic",
                "Thread Dimensions",
                "Multiple Device/Context",
                "Allocations (single maximum)",
                "Vectors",
                "Images (Kernel pitch)",
                "Images (Kernel CL_FILTER_LINEAR)",
                "Basic #2",
            ]
        );
        let threads = &entries[2];
        assert_eq!(threads.binary, "thread_dimensions/test_thread_dimensions");
        assert_eq!(threads.args, ["full*"]);
        assert_eq!(entries[4].args, ["single", "5", "all"]);
        // A space after the comma is not part of the path.
        assert_eq!(entries[5].binary, "vectors/test_vectors");
        let linear = &entries[7];
        assert_eq!(linear.device_type.as_deref(), Some("CL_DEVICE_TYPE_CPU"));
        assert_eq!(linear.args, ["CL_FILTER_LINEAR"]);
        assert_eq!(linear.binary_name(), "test_image_streams");
        assert_eq!(linear.directory(), "images");
        assert!(linear.runs_for(&["CL_DEVICE_TYPE_CPU".to_string()]));
        assert!(!linear.runs_for(&[]));
        assert!(entries[0].runs_for(&[]));
    }

    #[test]
    fn rejects_a_line_without_command() {
        let err = parse_suite_list("# header\nBasic\n").unwrap_err();
        assert_eq!(err.line, 2);
        let err = parse_suite_list("Basic,   \n").unwrap_err();
        assert_eq!(err.line, 1);
    }

    #[test]
    fn normalizes_device_types() {
        assert_eq!(
            normalize_device_type("cpu").as_deref(),
            Some("CL_DEVICE_TYPE_CPU")
        );
        assert_eq!(
            normalize_device_type("CL_DEVICE_TYPE_GPU").as_deref(),
            Some("CL_DEVICE_TYPE_GPU")
        );
        assert_eq!(normalize_device_type("fpga"), None);
    }
}
