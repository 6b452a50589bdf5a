//! The on-disk cache of builds (runtime build_cache.rs) through the API:
//! an entry is used, follows the headers a build reads from disk, is
//! rebuilt when damaged, and is not written for quick builds or when the
//! cache is off; the device's pipeline cache (runtime pipeline_cache.rs)
//! is written once quick pipelines add up. One
//! test, since the cache's environment variables are the process's.

mod common;

use common::*;
use std::path::{Path, PathBuf};

const SOURCE: &str = "#include \"value.h\"\n\
    kernel void k(global int *o) { o[0] = VALUE; }\n";

fn entries(dir: &Path) -> Vec<PathBuf> {
    let mut list: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|r| r.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    list.retain(|p| p.extension().is_some_and(|x| x == "bin"));
    list.sort();
    list
}

/// Builds `SOURCE` against the header directory and returns what `k`
/// writes.
fn value(gpu: &Gpu, include: &Path) -> i32 {
    let options = format!("-I {}", include.display());
    let k = gpu.kernel_with_options(SOURCE, "k", &options);
    let out = gpu.zeroed::<i32>(1);
    k.arg_buffer(0, &out);
    gpu.run(&k, &[1], None, None);
    gpu.read::<i32>(&out)[0]
}

#[test]
fn builds_come_from_the_cache_and_follow_their_headers() {
    let root = std::env::temp_dir().join(format!("ferrocl-build-cache-{}", std::process::id()));
    let (cache, include) = (root.join("cache"), root.join("include"));
    std::fs::create_dir_all(&include).unwrap();
    let header = include.join("value.h");
    std::env::set_var("FERROCL_CACHE_DIR", &cache);
    std::env::remove_var("FERROCL_CACHE");
    // This program compiles quicker than builds worth keeping do.
    std::env::set_var("FERROCL_CACHE_MIN_MS", "0");
    let gpu = Gpu::new();

    std::fs::write(&header, "#define VALUE 5\n").unwrap();
    assert_eq!(value(&gpu, &include), 5);
    let first = entries(&cache);
    assert_eq!(first.len(), 1, "one entry after one build");

    // The same source with another header is another entry.
    std::fs::write(&header, "#define VALUE 6\n").unwrap();
    assert_eq!(value(&gpu, &include), 6);
    let both = entries(&cache);
    assert_eq!(both.len(), 2, "a changed header is a new entry");
    let second = both.iter().find(|p| !first.contains(p)).unwrap().clone();

    // Back to the first header: its entry answers. Planting the second
    // entry's program there shows that the build read the entry.
    std::fs::write(&header, "#define VALUE 5\n").unwrap();
    std::fs::copy(&second, &first[0]).unwrap();
    assert_eq!(value(&gpu, &include), 6, "the build reads its entry");

    // A damaged entry is built again and replaced.
    let bytes = std::fs::read(&second).unwrap();
    std::fs::write(&first[0], &bytes[..bytes.len() / 2]).unwrap();
    assert_eq!(value(&gpu, &include), 5, "a damaged entry is rebuilt");
    let rebuilt = std::fs::read(&first[0]).expect("the entry is written again");
    assert!(rebuilt.len() > bytes.len() / 2);
    assert_eq!(value(&gpu, &include), 5);

    // A build quicker than FERROCL_CACHE_MIN_MS is not kept.
    std::env::set_var("FERROCL_CACHE_MIN_MS", "60000");
    let before = entries(&cache);
    std::fs::write(&header, "#define VALUE 8\n").unwrap();
    assert_eq!(value(&gpu, &include), 8);
    assert_eq!(entries(&cache), before, "a quick build is not kept");
    std::env::set_var("FERROCL_CACHE_MIN_MS", "0");

    // The device's pipeline cache is written once the pipelines created
    // since the last write add up to 100 ms, however quick each one is.
    let pipeline_files = |dir: &Path| {
        std::fs::read_dir(dir)
            .map(|r| {
                r.flatten()
                    .filter(|e| e.path().extension().is_some_and(|x| x == "vkcache"))
                    .count()
            })
            .unwrap_or(0)
    };
    for f in std::fs::read_dir(&cache).unwrap().flatten() {
        if f.path().extension().is_some_and(|x| x == "vkcache") {
            std::fs::remove_file(f.path()).unwrap();
        }
    }
    let mut kernels = 0;
    while pipeline_files(&cache) == 0 {
        assert!(
            kernels < 2000,
            "no pipeline cache written after {kernels} pipelines"
        );
        let source = format!("kernel void k(global int *o) {{ o[0] = {kernels}; }}\n");
        let k = gpu.kernel_with_options(&source, "k", "");
        let out = gpu.zeroed::<i32>(1);
        k.arg_buffer(0, &out);
        gpu.run(&k, &[1], None, None);
        assert_eq!(gpu.read::<i32>(&out)[0], kernels);
        kernels += 1;
    }

    // Off: nothing more is written.
    std::fs::remove_dir_all(&cache).unwrap();
    std::env::set_var("FERROCL_CACHE", "off");
    std::fs::write(&header, "#define VALUE 7\n").unwrap();
    assert_eq!(value(&gpu, &include), 7);
    assert!(
        entries(&cache).is_empty(),
        "FERROCL_CACHE=off writes nothing"
    );
    std::env::remove_var("FERROCL_CACHE");
    std::env::remove_var("FERROCL_CACHE_DIR");
    std::env::remove_var("FERROCL_CACHE_MIN_MS");
    let _ = std::fs::remove_dir_all(&root);
}
