//! The programs the compile-speed benchmarks build (shared by the
//! compiler-only and the clBuildProgram benchmarks), and how they measure
//! CPU time.

use std::time::Duration;

/// A kernel in the style of the CTS basic suite: a few arguments, vector
/// loads, a loop, built-ins, a conditional store.
pub const CTS_KERNEL: &str = r#"
__kernel void test_fpmath_float4(__global const float *srcA, __global const float *srcB,
                                 __global float *dst, int n, float scale)
{
    int tid = get_global_id(0);
    if (tid >= n)
        return;
    float4 a = vload4(tid, srcA);
    float4 b = vload4(tid, srcB);
    float4 acc = (float4)(0.0f);
    for (int i = 0; i < 4; i++) {
        acc = mad(a, b, acc);
        a = a.yzwx;
    }
    float4 r = fabs(acc) * scale + sqrt(fabs(b));
    r = select(r, -r, isless(acc, (float4)(0.0f)));
    if (any(isnan(r)))
        r = (float4)(0.0f);
    vstore4(r, tid, dst);
    int4 bits = as_int4(r) ^ (int4)(0x5a5a5a5a);
    dst[4 * n + tid] = convert_float(bits.x & 0xffff) + clamp(r.w, -1.0f, 1.0f);
}
"#;

/// One unit of the large program (~40 lines): a struct, two helpers and a
/// kernel, varied by `i` so no two units are the same text.
fn unit(i: usize) -> String {
    let (t, t4) = [("float", "float4"), ("int", "int4"), ("uint", "uint4")][i % 3];
    let conv = if t == "float" { "" } else { "convert_float4" };
    format!(
        r#"
typedef struct {{ {t4} value; {t} weight; int tag; }} item_{i};

static {t4} blend_{i}({t4} a, {t4} b, int k) {{
    {t4} r = a;
    for (int j = 0; j < k; j++) {{
        r = r + b * ({t})(j + {i});
        if (j % 3 == 2) r = r.wzyx;
    }}
    return r;
}}

static float score_{i}(item_{i} it) {{
    float4 v = {conv}(it.value);
    float s = dot(v, (float4)(0.5f, 0.25f, 0.125f, {i}.0f));
    s = fabs(s) + sqrt(fabs(v.x)) + native_exp(-fabs(v.y));
    return it.tag > {i} ? s * (float)it.weight : -s;
}}

__kernel void process_{i}(__global const {t4} *in, __global float *out,
                          __local {t4} *scratch, const int n) {{
    size_t gid = get_global_id(0);
    size_t lid = get_local_id(0);
    {t4} x = gid < (size_t)n ? in[gid] : ({t4})(0);
    scratch[lid] = blend_{i}(x, ({t4})(1, 2, 3, {i}), 4);
    barrier(CLK_LOCAL_MEM_FENCE);
    item_{i} it;
    it.value = scratch[(lid + 1) % get_local_size(0)];
    it.weight = ({t})({i} % 7 + 1);
    it.tag = (int)lid;
    float acc = 0.0f;
    for (int k = 0; k < 8; k++) {{
        acc += score_{i}(it) * (float)k;
        it.value = it.value + ({t4})(1);
    }}
    switch ((int)(gid & 3)) {{
    case 0: acc = max(acc, 0.0f); break;
    case 1: acc = clamp(acc, -{i}.0f, {i}.0f); break;
    default: acc = mix(acc, 1.0f, 0.5f);
    }}
    if (gid < (size_t)n) out[gid] = acc;
}}
"#
    )
}

/// Whole units until the program has at least `lines` lines.
pub fn large_program(lines: usize) -> String {
    let mut src = String::new();
    let mut i = 0;
    while src.lines().count() < lines {
        src.push_str(&unit(i));
        i += 1;
    }
    src
}

/// CPU time (user + system) this process has used, all threads included
/// (also those that have exited), from /proc/self/stat; `None` where that
/// file does not exist. Unlike wall time it barely changes when other
/// processes load the machine.
pub fn process_cpu_time() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The fields after the command name, which is in parentheses and may
    // contain spaces; utime and stime are fields 14 and 15 of the line.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    // /proc reports in USER_HZ, which is 100 on Linux.
    Some(Duration::from_millis(ticks * 10))
}
