//! Computes `BUILD_ID` (lib.rs): a hash of every file under `src`, so that
//! any change to the compiler, its built-in library included, changes the
//! id and the runtime's cached builds of the old compiler go unused.

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files(&path, out);
        } else {
            out.push(path);
        }
    }
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut list = Vec::new();
    files(&root.join("src"), &mut list);
    list.sort();
    // `DefaultHasher::new` has fixed keys: the same bytes give the same id
    // on every build with this toolchain.
    let mut hasher = std::hash::DefaultHasher::new();
    env!("CARGO_PKG_VERSION").hash(&mut hasher);
    for path in &list {
        path.strip_prefix(root).unwrap_or(path).hash(&mut hasher);
        std::fs::read(path).unwrap_or_default().hash(&mut hasher);
    }
    println!(
        "cargo:rustc-env=FERROCL_COMPILER_BUILD_ID={:016x}",
        hasher.finish()
    );
    println!("cargo:rerun-if-changed=src");
}
