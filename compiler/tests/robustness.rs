//! Malformed programs: every mutated or truncated version of valid kernels
//! must come back as a build result (usually a log), never a panic.

mod common;

use ferrocl_compiler::{compile, CompileRequest};

const SEEDS: &[&str] = &[
    "struct __attribute__((aligned(16))) pair { char c; int n __attribute__((aligned(8))); int a[4]; };\n\
     constant struct pair cp = { 1, 2, { 3, 4, 5, 6 } };\n\
     constant int *constant q = &cp.a[2] + 1;\n\
     constant char *constant msg = \"hi\" + 1;\n\
     static int helper(int v) { return v && (int2)(v, 1).y; }\n\
     kernel void s(global int *o, const int n) {\n\
       constant char *t = \"abc\";\n\
       char b[] = \"xyz\";\n\
       o[0] = t[n & 3] + b[1] + \"q\"[0] + *q + msg[0] + helper(n);\n\
       o[1] = __builtin_offsetof(struct pair, a[2]) + sizeof(\"abcd\");\n\
     }\n",
    include_str!("seeds/semantics.cl"),
    include_str!("seeds/memory.cl"),
    "typedef struct { float x, y; } point;\n\
     int sq(int x) { return x * x; }\n\
     kernel void k(global float4 *o, global point *p, local int *l, int n) {\n\
       int i = get_global_id(0);\n\
       float4 v = (float4)(1.0f, 2.0f, (float2)(3.0f, p[i].x));\n\
       for (int j = 0; j < n; j++) { if (j == 2) continue; v.xy += (float2)(sq(j)); }\n\
       switch (n) { case 1: v.w = 2.0f; break; default: v = -v; }\n\
       l[i % 4] = i; barrier(CLK_LOCAL_MEM_FENCE);\n\
       o[i] = n > 3 ? v : v.wzyx * l[0];\n\
     }\n",
    "constant int tab[3] = {1, 2, 3};\n\
     kernel void r(global const float *in, global float *out, local float *s) {\n\
       uint lid = get_local_id(0);\n\
       s[lid] = in[get_global_id(0)] * tab[lid % 3];\n\
       barrier(CLK_LOCAL_MEM_FENCE);\n\
       for (uint k = get_local_size(0) / 2; k > 0; k >>= 1) {\n\
         if (lid < k) s[lid] += s[lid + k];\n\
         barrier(CLK_LOCAL_MEM_FENCE);\n\
       }\n\
       if (lid == 0) { atomic_add((global int *)out, (int)s[0]); out[1] = convert_float(vload4(0, in).y); }\n\
     }\n",
];

/// A small deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const PIECES: &[&str] = &[
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    ";",
    ",",
    "*",
    "&",
    "->",
    ".",
    "=",
    "+=",
    "<<",
    "?",
    ":",
    "int",
    "float4",
    "global",
    "local",
    "return",
    "if",
    "else",
    "for",
    "while",
    "do",
    "switch",
    "case 1:",
    "default:",
    "break;",
    "continue;",
    "struct",
    "typedef",
    "kernel",
    "void",
    "0x",
    "1.5f",
    "'a'",
    "\"s\"",
    "#",
    "\\",
    "__attribute__((",
    "sizeof",
    "vec_step",
    ".s0123",
    ".xyzw",
    "get_global_id(",
    "barrier(",
    "atomic_add(",
    "convert_int4(",
    "as_float(",
    "k(",
    "sq(",
    "9999999999999999999999",
    "-",
    "!",
    "~",
    "++",
    "--",
    "/",
    "%",
    "^",
    "|",
    "&&",
];

fn mutate(src: &str, rng: &mut Rng) -> String {
    let bytes: Vec<char> = src.chars().collect();
    let mut out = bytes.clone();
    for _ in 0..1 + rng.below(3) {
        if out.is_empty() {
            break;
        }
        let at = rng.below(out.len());
        match rng.below(4) {
            0 => {
                let end = (at + 1 + rng.below(12)).min(out.len());
                out.drain(at..end);
            }
            1 => {
                let piece = PIECES[rng.below(PIECES.len())];
                for (k, c) in piece.chars().enumerate() {
                    out.insert(at + k, c);
                }
            }
            2 => {
                let from = rng.below(out.len());
                let len = rng.below(20).min(out.len() - from);
                let seg: Vec<char> = out[from..from + len].to_vec();
                for (k, c) in seg.into_iter().enumerate() {
                    out.insert(at + k, c);
                }
            }
            _ => {
                let j = rng.below(out.len());
                out.swap(at, j);
            }
        }
    }
    out.into_iter().collect()
}

fn must_not_panic(source: &str) {
    let caps = common::caps();
    let req = CompileRequest {
        source,
        options: "",
        headers: &[],
    };
    let result = std::panic::catch_unwind(|| compile(&req, &caps));
    match result {
        // A module without kernels has no entry point and never reaches
        // Vulkan, so there is nothing for spirv-val's Vulkan rules to check.
        Ok(Ok(p)) if p.kernels.is_empty() => {}
        Ok(Ok(p)) => {
            if std::panic::catch_unwind(|| common::validate(&p.spirv)).is_err() {
                panic!("invalid SPIR-V for:\n{source}");
            }
        }
        Ok(Err(e)) => assert!(!e.log.is_empty(), "a failed build needs a log:\n{source}"),
        Err(_) => panic!("compile() panicked on:\n{source}"),
    }
}

#[test]
fn seeds_build() {
    for s in SEEDS {
        common::build(s);
    }
}

#[test]
fn truncated_programs_do_not_panic() {
    for s in SEEDS {
        let chars: Vec<char> = s.chars().collect();
        for end in (0..chars.len()).step_by(3) {
            let t: String = chars[..end].iter().collect();
            must_not_panic(&t);
        }
    }
}

#[test]
fn mutated_programs_do_not_panic() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for s in SEEDS {
        let iterations = std::env::var("FERROCL_FUZZ_ITERATIONS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(300);
        for _ in 0..iterations {
            let m = mutate(s, &mut rng);
            must_not_panic(&m);
        }
    }
}

#[test]
fn deep_nesting_is_diagnosed() {
    let mut src = String::from("kernel void k(global int *o) { o[0] = ");
    src.push_str(&"(".repeat(5000));
    src.push('1');
    src.push_str(&")".repeat(5000));
    src.push_str("; }\n");
    let log = common::build_error(&src);
    assert!(log.contains("too deep"), "{log}");
    let mut blocks = String::from("kernel void k(global int *o) {");
    blocks.push_str(&"{ if (o[0]) ".repeat(3000));
    blocks.push_str(&"}".repeat(3000));
    blocks.push('}');
    must_not_panic(&blocks);
}
