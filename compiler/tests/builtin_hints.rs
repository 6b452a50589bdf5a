//! clang's `__has_builtin`, `__builtin_expect` and `__builtin_assume`,
//! which portable kernels use for branch hints.

mod common;

#[test]
fn has_builtin_answers_for_built_in_functions() {
    common::build(
        r#"
        #ifndef __has_builtin
        #error __has_builtin is not defined
        #endif
        #if !__has_builtin(__builtin_expect) || !__has_builtin(__builtin_assume)
        #error the hints are missing
        #endif
        #if !__has_builtin(get_global_id) || !__has_builtin(sqrt)
        #error OpenCL built-ins are missing
        #endif
        #if __has_builtin(no_such_function) || __has_builtin(__builtin_no_such_thing)
        #error an unknown name is a built-in
        #endif
        kernel void k(global int *p) { p[0] = 1; }
        "#,
    );
    let log = common::build_error(
        "#if __has_builtin(1)\n#endif\nkernel void k(global int *p) { p[0] = 1; }",
    );
    assert!(
        log.contains("'__has_builtin' needs a function name"),
        "{log}"
    );
}

#[test]
fn expect_and_assume_build() {
    // What they compute is checked on a device (icd/tests/kernels.rs).
    common::build(
        r#"
        kernel void k(global int *p) {
            int v = p[0];
            __builtin_assume(p[1]++ > 0);
            if (__builtin_expect(v > 3, 1))
                p[2] = (int)__builtin_expect(v, 0) + 1;
        }"#,
    );
    let log =
        common::build_error("kernel void k(global int *p) { __builtin_assume(p[0] > 0, 1); }");
    assert!(log.contains("takes 1 argument"), "{log}");
}
