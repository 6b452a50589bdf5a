//! `ferrocl install`: registers libferrocl.so with the ICD loaders (Khronos
//! and ocl-icd) by writing a `ferrocl.icd` file, one line holding the
//! library's absolute path, into the vendors directory they scan.

use std::io::ErrorKind;
use std::path::{Path, PathBuf};

/// Where the Khronos and ocl-icd loaders look for `.icd` files.
pub const SYSTEM_VENDORS_DIR: &str = "/etc/OpenCL/vendors";

/// The name of the file the loaders read.
pub const ICD_FILE_NAME: &str = "ferrocl.icd";

/// `libferrocl.so` next to the running executable (where cargo and an
/// installed tree both put it).
pub fn library_next_to_executable() -> Result<PathBuf, String> {
    let exe =
        std::env::current_exe().map_err(|e| format!("cannot find this program's path: {e}"))?;
    let dir = exe.parent().ok_or("this program's path has no directory")?;
    Ok(dir.join("libferrocl.so"))
}

/// Writes `dir/ferrocl.icd` naming `lib` (made absolute), creating `dir`.
/// Returns the file written and the line in it.
pub fn write_icd(dir: &Path, lib: &Path) -> Result<(PathBuf, String), String> {
    let lib = lib
        .canonicalize()
        .map_err(|e| format!("{}: {e}", lib.display()))?;
    if !lib.is_file() {
        return Err(format!("{} is not a file", lib.display()));
    }
    let line = lib
        .to_str()
        .ok_or_else(|| format!("{} is not valid UTF-8", lib.display()))?
        .to_string();
    if line.contains('\n') {
        return Err(format!(
            "{line:?} contains a newline, which an .icd file cannot hold"
        ));
    }
    let explain = |action: &str, path: &Path, e: std::io::Error| {
        let hint = if e.kind() == ErrorKind::PermissionDenied {
            " (run as root, or choose another directory with --prefix DIR and point OCL_ICD_VENDORS at it)"
        } else {
            ""
        };
        format!("cannot {action} {}: {e}{hint}", path.display())
    };
    std::fs::create_dir_all(dir).map_err(|e| explain("create", dir, e))?;
    let file = dir.join(ICD_FILE_NAME);
    std::fs::write(&file, format!("{line}\n")).map_err(|e| explain("write", &file, e))?;
    Ok((file, line))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("ferrocl-cli-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn writes_one_absolute_line_and_creates_the_directory() {
        let root = scratch("icd");
        let lib = root.join("libferrocl.so");
        std::fs::write(&lib, b"not really a library").unwrap();
        let vendors = root.join("etc/OpenCL/vendors");
        // A relative path to the library must come out absolute.
        let relative = {
            let cwd = std::env::current_dir().unwrap();
            pathdiff(&lib, &cwd)
        };
        let (file, line) = write_icd(&vendors, &relative).unwrap();
        assert_eq!(file, vendors.join("ferrocl.icd"));
        let text = std::fs::read_to_string(&file).unwrap();
        assert_eq!(text, format!("{line}\n"));
        assert_eq!(text.lines().count(), 1);
        assert!(Path::new(&line).is_absolute());
        assert_eq!(Path::new(&line), lib.canonicalize().unwrap());
        // Writing again replaces the file.
        let (_, again) = write_icd(&vendors, &lib).unwrap();
        assert_eq!(
            std::fs::read_to_string(&file).unwrap(),
            format!("{again}\n")
        );
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn missing_library_is_an_error() {
        let root = scratch("missing");
        let err = write_icd(&root.join("vendors"), &root.join("nope.so")).unwrap_err();
        assert!(err.contains("nope.so"), "{err}");
        assert!(!root.join("vendors/ferrocl.icd").exists());
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn unwritable_directory_is_a_clear_error() {
        let root = scratch("blocked");
        let lib = root.join("libferrocl.so");
        std::fs::write(&lib, b"x").unwrap();
        // A regular file where the directory should be: creation fails for
        // root and non-root alike.
        let blocker = root.join("vendors");
        std::fs::write(&blocker, b"file").unwrap();
        let err = write_icd(&blocker.join("sub"), &lib).unwrap_err();
        assert!(err.starts_with("cannot create"), "{err}");
        std::fs::remove_dir_all(&root).unwrap();
    }

    /// `path` relative to `base` (both absolute), for the test above.
    fn pathdiff(path: &Path, base: &Path) -> PathBuf {
        let p: Vec<_> = path.components().collect();
        let b: Vec<_> = base.components().collect();
        let common = p.iter().zip(&b).take_while(|(x, y)| x == y).count();
        let mut out = PathBuf::new();
        for _ in common..b.len() {
            out.push("..");
        }
        for c in &p[common..] {
            out.push(c);
        }
        out
    }
}
