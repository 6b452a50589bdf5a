//! Large functions that a kernel would inline more than once are SPIR-V
//! functions of their own, one copy per kernel (compiler/src/lower/
//! outline.rs). Every module here passes `spirv-val`; results are checked
//! on a device in icd/tests/kernels.rs.

mod common;

use ferrocl_compiler::TargetCaps;
use rspirv::dr::{Module, Operand};
use rspirv::spirv::{Op, StorageClass};

fn caps_with(min_nodes: usize) -> TargetCaps {
    TargetCaps {
        outline_min_nodes: min_nodes,
        ..common::caps()
    }
}

fn module(source: &str, min_nodes: usize) -> Module {
    let p = common::build_caps(source, &caps_with(min_nodes));
    rspirv::dr::load_words(&p.spirv).expect("the module parses")
}

/// The names of the module's functions that are not entry points, one per
/// copy.
fn functions(m: &Module) -> Vec<String> {
    let entries: Vec<u32> = m
        .entry_points
        .iter()
        .map(|e| e.operands[1].unwrap_id_ref())
        .collect();
    m.functions
        .iter()
        .filter_map(|f| f.def.as_ref()?.result_id)
        .filter(|id| !entries.contains(id))
        .map(|id| name(m, id))
        .collect()
}

fn name(m: &Module, id: u32) -> String {
    m.debug_names
        .iter()
        .find(|i| i.class.opcode == Op::Name && i.operands.first() == Some(&Operand::IdRef(id)))
        .and_then(|i| match i.operands.get(1) {
            Some(Operand::LiteralString(s)) => Some(s.clone()),
            _ => None,
        })
        .unwrap_or_default()
}

fn calls(m: &Module) -> usize {
    m.functions
        .iter()
        .flat_map(|f| f.blocks.iter().flat_map(|b| &b.instructions))
        .filter(|i| i.class.opcode == Op::FunctionCall)
        .count()
}

/// A function of about 60 expression nodes taking a global pointer and a
/// value, and returning one.
const STEP: &str = r#"
uint step(__global const uint *w, uint s) {
    for (int i = 0; i < 4; i++) {
        s += w[i] * 3u + (s >> 3);
        s ^= rotate(s, 7u);
        if (s == 12345u) return w[0];
    }
    return s;
}
"#;

#[test]
fn a_large_function_inlined_twice_becomes_one_spirv_function() {
    let src = format!(
        "{STEP}
        __kernel void k(__global const uint *w, __global uint *out) {{
            uint s = step(w, (uint)get_global_id(0));
            out[get_global_id(0)] = step(w + 4, s);
        }}"
    );
    let m = module(&src, 10);
    assert_eq!(functions(&m), ["step"]);
    assert_eq!(calls(&m), 2);
    // Below the size bound, and with outlining off, both calls inline.
    for min in [1000, usize::MAX] {
        let m = module(&src, min);
        assert!(functions(&m).is_empty(), "min {min}");
        assert_eq!(calls(&m), 0, "min {min}");
    }
}

#[test]
fn a_function_inlined_once_stays_inline_unless_everything_is_outlined() {
    let src = format!(
        "{STEP}
        __kernel void k(__global const uint *w, __global uint *out) {{
            out[0] = step(w, 1u);
        }}"
    );
    assert!(functions(&module(&src, 10)).is_empty());
    assert_eq!(functions(&module(&src, 0)), ["step"]);
}

#[test]
fn copies_count_the_callers_copies_and_each_kernel_has_its_own() {
    // `outer` is inlined twice by `a`, so it is outlined; `step` is then
    // called twice from outer's one copy, so it is outlined too. `b` calls
    // `step` once and `outer` not at all: it inlines `step`.
    let src = format!(
        "{STEP}
        uint outer(__global const uint *w, uint s) {{
            return step(w, s) ^ step(w + 4, s + 1u);
        }}
        __kernel void a(__global const uint *w, __global uint *out) {{
            out[0] = outer(w, 1u) + outer(w, 2u);
        }}
        __kernel void b(__global const uint *w, __global uint *out) {{
            out[0] = step(w, 3u);
        }}"
    );
    let m = module(&src, 10);
    let mut f = functions(&m);
    f.sort();
    assert_eq!(f, ["outer", "step"]);
    assert_eq!(calls(&m), 4);
    // Two kernels that both outline `step` get a copy each.
    let src = format!(
        "{STEP}
        __kernel void a(__global const uint *w, __global uint *out) {{
            out[0] = step(w, 1u) + step(w, 2u);
        }}
        __kernel void b(__global const uint *w, __global uint *out) {{
            out[0] = step(w, 3u) + step(w, 4u);
        }}"
    );
    assert_eq!(functions(&module(&src, 10)), ["step", "step"]);
}

/// Whether a `Private` variable (the private pool) is among the variables
/// the entry point lists.
fn private_pool_in_interface(m: &Module) -> bool {
    let interface: Vec<u32> = m.entry_points[0].operands[3..]
        .iter()
        .map(|o| o.unwrap_id_ref())
        .collect();
    m.types_global_values.iter().any(|i| {
        i.class.opcode == Op::Variable
            && i.operands.first() == Some(&Operand::StorageClass(StorageClass::Private))
            && i.result_id.is_some_and(|id| interface.contains(&id))
    })
}

/// A pooled program (a pointer cast in private memory): private pointers
/// are byte offsets into the kernel's pool.
const MIX: &str = r#"
void mix(uint *st, const uint *w) {
    for (int i = 0; i < 4; i++) {
        st[i] += w[i] * 3u + (st[(i + 1) & 3] >> 3);
        st[i] ^= rotate(st[i], 7u);
    }
    uchar *b = (uchar *)st;
    b[1] ^= b[2];
}
"#;

#[test]
fn private_pointers_into_the_pool_are_passed_as_offsets() {
    let src = format!(
        "{MIX}
        __kernel void k(__global uint *out) {{
            uint st[4] = {{1, 2, 3, 4}};
            uint w[4] = {{5, 6, 7, 8}};
            mix(st, w);
            mix(w, st);
            out[0] = st[0] ^ w[3];
        }}"
    );
    let m = module(&src, 10);
    assert_eq!(functions(&m), ["mix"]);
    // The pool moves to a `Private` variable that both functions reach.
    assert!(private_pool_in_interface(&m));
    let m = module(&src, usize::MAX);
    assert!(!private_pool_in_interface(&m));
}

#[test]
fn private_pointers_with_a_compile_time_target_pass_their_variable() {
    // No cast or union: private pointers name their variable at compile
    // time, and the outlined function takes that variable (a `Function`
    // pointer) and the element index. Without outlining the calls inline.
    let src = r#"
        void add(uint *st, uint v) {
            for (int i = 0; i < 4; i++) st[i] += v * (uint)i;
        }
        __kernel void k(__global uint *out) {
            uint st[4] = {1, 2, 3, 4};
            add(st, 1u);
            add(st + 1, 2u);
            out[0] = st[3];
        }"#;
    let m = module(src, 0);
    assert_eq!(functions(&m), ["add"]);
    assert_eq!(calls(&m), 2);
    let add = m
        .functions
        .iter()
        .find(|f| name(&m, f.def_id().unwrap_or(0)) == "add")
        .expect("add");
    let param_types: Vec<u32> = add
        .parameters
        .iter()
        .filter_map(|p| p.result_type)
        .collect();
    let function_pointer = |id: &u32| {
        m.types_global_values.iter().any(|i| {
            i.result_id == Some(*id)
                && i.class.opcode == Op::TypePointer
                && i.operands.first() == Some(&Operand::StorageClass(StorageClass::Function))
        })
    };
    // The variable, the element index and `v`.
    assert_eq!(param_types.len(), 3);
    assert!(function_pointer(&param_types[0]));
    assert!(!private_pool_in_interface(&m));
    assert!(functions(&module(src, usize::MAX)).is_empty());
}

#[test]
fn recursion_is_still_diagnosed_when_functions_are_outlined() {
    let src = r#"
        uint down(uint n) { return n == 0u ? 0u : down(n - 1u) + 1u; }
        __kernel void k(__global uint *out) { out[0] = down(3u) + down(4u); }"#;
    let caps = caps_with(0);
    let log = common::build_error_caps(src, &caps);
    assert!(log.contains("recursive call to 'down'"), "{log}");
}

/// `uint big(__global const uint *w, uint s)`: 40 rounds of 13
/// expression nodes each, some 560 nodes a copy.
fn big() -> String {
    let rounds: String = (0..40)
        .map(|i| {
            format!(
                "s = rotate(s ^ (w[{}] + {i}u), {}u) * 0x9e3779b9u;\n",
                i % 4,
                i % 31 + 1
            )
        })
        .collect();
    format!("uint big(__global const uint *w, uint s) {{ {rounds} return s; }}\n")
}

#[test]
fn the_default_bound_outlines_a_large_function_called_twice() {
    let big = big();
    let src = format!(
        "{big}
        uint small(uint s) {{ return s * 3u + 1u; }}
        __kernel void k(__global const uint *w, __global uint *out) {{
            out[0] = big(w, small(1u)) + big(w, small(2u));
        }}"
    );
    let m = module(&src, TargetCaps::default().outline_min_nodes);
    assert_eq!(functions(&m), ["big"]);
}

/// The names of the functions whose function control asks the driver
/// not to inline them.
fn kept_as_calls(m: &Module) -> Vec<String> {
    use rspirv::spirv::FunctionControl;
    m.functions
        .iter()
        .filter_map(|f| f.def.as_ref())
        .filter(|d| {
            matches!(d.operands.first(), Some(Operand::FunctionControl(c))
                if c.contains(FunctionControl::DONT_INLINE))
        })
        .filter_map(|d| d.result_id)
        .map(|id| name(m, id))
        .collect()
}

#[test]
fn a_function_whose_copies_would_be_large_stays_a_call_for_the_driver_too() {
    let big = big();
    let kernel = |sites: usize| {
        let calls: String = (0..sites)
            .map(|i| format!("out[{i}] = big(w, {i}u);\n"))
            .collect();
        format!(
            "{big}
            __kernel void k(__global const uint *w, __global uint *out) {{ {calls} }}"
        )
    };
    let bound = TargetCaps::default().outline_min_nodes;
    // Two copies: outlined, but the driver may inline them again.
    let m = module(&kernel(2), bound);
    assert_eq!(functions(&m), ["big"]);
    assert!(kept_as_calls(&m).is_empty());
    // Eighty copies, past 32,000 nodes: the calls stay calls.
    let m = module(&kernel(80), bound);
    assert_eq!(functions(&m), ["big"]);
    assert_eq!(kept_as_calls(&m), ["big"]);
    assert_eq!(calls(&m), 80);
}

/// A struct member passed by pointer (`&hm.ipad`, `&hm.opad`) goes as a
/// copy of the member, so the two calls share one copy of `update`
/// (`TargetCaps::outline_member_copies`); without it each member has its
/// copy. Two pointers into one variable in one call keep the members.
#[test]
fn struct_members_share_one_copy_of_an_outlined_function() {
    let src = r#"
        typedef struct { uint h[4]; uint len; } ctx_t;
        typedef struct { ctx_t ipad; ctx_t opad; } hmac_t;
        void update(ctx_t *ctx, uint v) {
            for (int i = 0; i < 4; i++) ctx->h[i] = rotate(ctx->h[i] ^ v, 5u) + (uint)i;
            ctx->len += 1u;
        }
        void both(ctx_t *a, ctx_t *b) {
            b->h[0] ^= a->h[1];
            a->len += b->len;
        }
        __kernel void k(__global uint *out) {
            hmac_t hm = {{{1u, 2u, 3u, 4u}, 0u}, {{5u, 6u, 7u, 8u}, 0u}};
            update(&hm.ipad, 9u);
            update(&hm.opad, 10u);
            both(&hm.ipad, &hm.opad);
            both(&hm.opad, &hm.ipad);
            out[0] = hm.ipad.h[2] + hm.opad.len;
        }"#;
    let build = |copies: bool| {
        let caps = TargetCaps {
            outline_member_copies: copies,
            ..caps_with(0)
        };
        let p = common::build_caps(src, &caps);
        rspirv::dr::load_words(&p.spirv).expect("the module parses")
    };
    let count = |m: &Module, f: &str| functions(m).iter().filter(|n| *n == f).count();
    let copied = build(true);
    assert_eq!(count(&copied, "update"), 1, "{:?}", functions(&copied));
    // `both` takes two members of one variable: one copy per shape.
    assert_eq!(count(&copied, "both"), 2, "{:?}", functions(&copied));
    let chained = build(false);
    assert_eq!(count(&chained, "update"), 2, "{:?}", functions(&chained));
    assert_eq!(count(&chained, "both"), 2, "{:?}", functions(&chained));
}
