//! The built-in functions of OpenCL C, declared in one table: each name maps
//! to how the lowering implements it. GLSL.std.450 instructions are used for
//! math for now; their Vulkan precision is not yet checked against the
//! OpenCL ULP bounds (`native_*` and `half_*` map to the same instructions).

use crate::sema::types::{Scalar, Type};

/// GLSL.std.450 instruction numbers.
pub mod glsl {
    pub const ROUND_EVEN: u32 = 2;
    pub const TRUNC: u32 = 3;
    pub const FABS: u32 = 4;
    pub const SABS: u32 = 5;
    pub const FSIGN: u32 = 6;
    pub const FLOOR: u32 = 8;
    pub const CEIL: u32 = 9;
    pub const RADIANS: u32 = 11;
    pub const DEGREES: u32 = 12;
    pub const SIN: u32 = 13;
    pub const COS: u32 = 14;
    pub const TAN: u32 = 15;
    pub const ASIN: u32 = 16;
    pub const ACOS: u32 = 17;
    pub const ATAN: u32 = 18;
    pub const SINH: u32 = 19;
    pub const COSH: u32 = 20;
    pub const TANH: u32 = 21;
    pub const ASINH: u32 = 22;
    pub const ACOSH: u32 = 23;
    pub const ATANH: u32 = 24;
    pub const ATAN2: u32 = 25;
    pub const POW: u32 = 26;
    pub const EXP: u32 = 27;
    pub const LOG: u32 = 28;
    pub const EXP2: u32 = 29;
    pub const LOG2: u32 = 30;
    pub const SQRT: u32 = 31;
    pub const INVERSE_SQRT: u32 = 32;
    pub const FMIN: u32 = 37;
    pub const UMIN: u32 = 38;
    pub const SMIN: u32 = 39;
    pub const FMAX: u32 = 40;
    pub const UMAX: u32 = 41;
    pub const SMAX: u32 = 42;
    pub const FCLAMP: u32 = 43;
    pub const UCLAMP: u32 = 44;
    pub const SCLAMP: u32 = 45;
    pub const FMIX: u32 = 46;
    pub const STEP: u32 = 48;
    pub const SMOOTH_STEP: u32 = 49;
    pub const FMA: u32 = 50;
    pub const LDEXP: u32 = 53;
    pub const PACK_HALF_2X16: u32 = 58;
    pub const UNPACK_HALF_2X16: u32 = 62;
    pub const LENGTH: u32 = 66;
    pub const DISTANCE: u32 = 67;
    pub const CROSS: u32 = 68;
    pub const NORMALIZE: u32 = 69;
    pub const FIND_ILSB: u32 = 73;
    pub const FIND_UMSB: u32 = 75;
    pub const NMIN: u32 = 79;
    pub const NMAX: u32 = 80;
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WorkItem {
    WorkDim,
    GlobalSize,
    GlobalId,
    LocalSize,
    EnqueuedLocalSize,
    LocalId,
    NumGroups,
    GroupId,
    GlobalOffset,
    GlobalLinearId,
    LocalLinearId,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomicOp {
    Add,
    Sub,
    Xchg,
    Inc,
    Dec,
    CmpXchg,
    Min,
    Max,
    And,
    Or,
    Xor,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fence {
    /// `barrier`, `work_group_barrier`: execution and memory.
    Barrier,
    /// `mem_fence`, `read_mem_fence`, `write_mem_fence`.
    MemFence,
}

/// Float rounding applied before a float→integer `convert_*`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rounding {
    Default,
    Rte,
    Rtz,
    Rtp,
    Rtn,
}

/// The OpenCL C 2.0 atomic functions (section 6.15.12 of the OpenCL C
/// specification).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomicC11 {
    Init,
    Load,
    Store,
    Exchange,
    /// `atomic_compare_exchange_strong` and `_weak` (a weak exchange may
    /// fail spuriously; this one never does).
    CompareExchange,
    /// `atomic_fetch_<op>`: `Add`, `Sub`, `Or`, `Xor`, `And`, `Min`, `Max`.
    Fetch(AtomicOp),
    FlagTestAndSet,
    FlagClear,
    WorkItemFence,
}

/// The combining operation of a reduction or scan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GroupArith {
    Add,
    Min,
    Max,
    Mul,
    And,
    Or,
    Xor,
    LogicalAnd,
    LogicalOr,
    LogicalXor,
}

/// A collective over a work-group or a sub-group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GroupOp {
    All,
    Any,
    Broadcast,
    Reduce(GroupArith),
    ScanInclusive(GroupArith),
    ScanExclusive(GroupArith),
}

/// The sub-group functions (cl_khr_subgroups and the extended sub-group
/// extensions).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SubGroupFn {
    Size,
    MaxSize,
    NumSubGroups,
    EnqueuedNumSubGroups,
    Id,
    LocalId,
    Barrier,
    Collective(GroupOp),
    /// `sub_group_non_uniform_*`: over the active work-items only.
    NonUniform(GroupOp),
    /// `sub_group_clustered_reduce_<op>(value, clustersize)`
    /// (cl_khr_subgroup_clustered_reduce): over the active work-items of
    /// each cluster of `clustersize` consecutive sub-group local ids.
    ClusteredReduce(GroupArith),
    Elect,
    NonUniformAll,
    NonUniformAny,
    NonUniformAllEqual,
    NonUniformBroadcast,
    BroadcastFirst,
    Ballot,
    InverseBallot,
    BallotBitExtract,
    BallotBitCount,
    BallotInclusiveScan,
    BallotExclusiveScan,
    BallotFindLsb,
    BallotFindMsb,
    EqMask,
    GeMask,
    GtMask,
    LeMask,
    LtMask,
    Shuffle,
    ShuffleXor,
    ShuffleUp,
    ShuffleDown,
    Rotate,
    ClusteredRotate,
}

/// How a built-in is implemented.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Builtin {
    WorkItem(WorkItem),
    Fence(Fence),
    Atomic(AtomicOp),
    /// OpenCL C 2.0 atomics; `explicit` for the `_explicit` forms, whose
    /// memory order and scope are arguments.
    AtomicC11 {
        op: AtomicC11,
        explicit: bool,
    },
    /// `work_group_<collective>`.
    WorkGroup(GroupOp),
    SubGroup(SubGroupFn),
    /// `gentypef f(gentypef...)` as one GLSL.std.450 instruction with
    /// `arity` arguments; `f32_only` where GLSL.std.450 has no 64-bit form.
    FloatGlsl {
        op: u32,
        arity: u8,
        f32_only: bool,
    },
    /// Per-signedness integer GLSL ops (`min`, `max`, `clamp`) that also
    /// take floats.
    MinMax {
        fop: u32,
        sop: u32,
        uop: u32,
        arity: u8,
    },
    /// Anything with its own lowering, named by the function.
    Special(&'static str),
    /// A function of the built-in library (`library.cl`) on `float`, applied
    /// per component; other float types use the GLSL.std.450 `fallback`.
    Library {
        func: &'static str,
        arity: u8,
        fallback: Option<u32>,
    },
    /// `convert_<type>[_sat][_<rounding>]`.
    Convert {
        to: Type,
        sat: bool,
        rounding: Rounding,
    },
    /// `as_<type>`.
    AsType(Type),
    VLoad(u8),
    VStore(u8),
    /// `vload_half[n]` and `vloada_half[n]`: half values in memory read as
    /// floats; n components, the offset counted in units of `stride`
    /// halves (`vloada_half3` steps by 4).
    VLoadHalf(u8, u8),
    /// `vstore_half[n][_rte|_rtz|_rtp|_rtn]` and `vstorea_half[n][...]`:
    /// float or double values stored as half values, rounded once in the
    /// named mode (round to nearest even by default); strides as for loads.
    VStoreHalf(u8, HalfStore),
}

/// How a `vstore_half` form lays out and rounds what it stores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HalfStore {
    /// The offset argument counts units of this many halves.
    pub stride: u8,
    /// `Rounding::Default` is round to nearest even for these functions.
    pub rounding: Rounding,
}

const TABLE: &[(&str, Builtin)] = {
    use glsl::*;
    use Builtin::*;
    const fn f1(op: u32) -> Builtin {
        FloatGlsl {
            op,
            arity: 1,
            f32_only: false,
        }
    }
    const fn f1s(op: u32) -> Builtin {
        FloatGlsl {
            op,
            arity: 1,
            f32_only: true,
        }
    }
    &[
        ("get_work_dim", WorkItem(self::WorkItem::WorkDim)),
        ("get_global_size", WorkItem(self::WorkItem::GlobalSize)),
        ("get_global_id", WorkItem(self::WorkItem::GlobalId)),
        ("get_local_size", WorkItem(self::WorkItem::LocalSize)),
        (
            "get_enqueued_local_size",
            WorkItem(self::WorkItem::EnqueuedLocalSize),
        ),
        ("get_local_id", WorkItem(self::WorkItem::LocalId)),
        ("get_num_groups", WorkItem(self::WorkItem::NumGroups)),
        ("get_group_id", WorkItem(self::WorkItem::GroupId)),
        ("get_global_offset", WorkItem(self::WorkItem::GlobalOffset)),
        (
            "get_global_linear_id",
            WorkItem(self::WorkItem::GlobalLinearId),
        ),
        (
            "get_local_linear_id",
            WorkItem(self::WorkItem::LocalLinearId),
        ),
        ("barrier", Fence(self::Fence::Barrier)),
        ("work_group_barrier", Fence(self::Fence::Barrier)),
        ("mem_fence", Fence(self::Fence::MemFence)),
        ("read_mem_fence", Fence(self::Fence::MemFence)),
        ("write_mem_fence", Fence(self::Fence::MemFence)),
        ("atomic_add", Atomic(AtomicOp::Add)),
        ("atomic_sub", Atomic(AtomicOp::Sub)),
        ("atomic_xchg", Atomic(AtomicOp::Xchg)),
        ("atomic_inc", Atomic(AtomicOp::Inc)),
        ("atomic_dec", Atomic(AtomicOp::Dec)),
        ("atomic_cmpxchg", Atomic(AtomicOp::CmpXchg)),
        ("atomic_min", Atomic(AtomicOp::Min)),
        ("atomic_max", Atomic(AtomicOp::Max)),
        ("atomic_and", Atomic(AtomicOp::And)),
        ("atomic_or", Atomic(AtomicOp::Or)),
        ("atomic_xor", Atomic(AtomicOp::Xor)),
        ("atom_add", Atomic(AtomicOp::Add)),
        ("atom_sub", Atomic(AtomicOp::Sub)),
        ("atom_xchg", Atomic(AtomicOp::Xchg)),
        ("atom_inc", Atomic(AtomicOp::Inc)),
        ("atom_dec", Atomic(AtomicOp::Dec)),
        ("atom_cmpxchg", Atomic(AtomicOp::CmpXchg)),
        ("atom_min", Atomic(AtomicOp::Min)),
        ("atom_max", Atomic(AtomicOp::Max)),
        ("atom_and", Atomic(AtomicOp::And)),
        ("atom_or", Atomic(AtomicOp::Or)),
        ("atom_xor", Atomic(AtomicOp::Xor)),
        ("sqrt", f1(SQRT)),
        ("rsqrt", f1(INVERSE_SQRT)),
        (
            "exp",
            Library {
                func: "__ferrocl_exp",
                arity: 1,
                fallback: Some(EXP),
            },
        ),
        (
            "exp2",
            Library {
                func: "__ferrocl_exp2",
                arity: 1,
                fallback: Some(EXP2),
            },
        ),
        (
            "log",
            Library {
                func: "__ferrocl_log",
                arity: 1,
                fallback: Some(LOG),
            },
        ),
        (
            "log2",
            Library {
                func: "__ferrocl_log2",
                arity: 1,
                fallback: Some(LOG2),
            },
        ),
        (
            "sin",
            Library {
                func: "__ferrocl_sin",
                arity: 1,
                fallback: Some(SIN),
            },
        ),
        (
            "cos",
            Library {
                func: "__ferrocl_cos",
                arity: 1,
                fallback: Some(COS),
            },
        ),
        (
            "tan",
            Library {
                func: "__ferrocl_tan",
                arity: 1,
                fallback: Some(TAN),
            },
        ),
        (
            "asin",
            Library {
                func: "__ferrocl_asin",
                arity: 1,
                fallback: Some(ASIN),
            },
        ),
        (
            "acos",
            Library {
                func: "__ferrocl_acos",
                arity: 1,
                fallback: Some(ACOS),
            },
        ),
        (
            "atan",
            Library {
                func: "__ferrocl_atan",
                arity: 1,
                fallback: Some(ATAN),
            },
        ),
        (
            "sinh",
            Library {
                func: "__ferrocl_sinh",
                arity: 1,
                fallback: Some(SINH),
            },
        ),
        (
            "cosh",
            Library {
                func: "__ferrocl_cosh",
                arity: 1,
                fallback: Some(COSH),
            },
        ),
        (
            "tanh",
            Library {
                func: "__ferrocl_tanh",
                arity: 1,
                fallback: Some(TANH),
            },
        ),
        (
            "asinh",
            Library {
                func: "__ferrocl_asinh",
                arity: 1,
                fallback: Some(ASINH),
            },
        ),
        (
            "acosh",
            Library {
                func: "__ferrocl_acosh",
                arity: 1,
                fallback: Some(ACOSH),
            },
        ),
        (
            "atanh",
            Library {
                func: "__ferrocl_atanh",
                arity: 1,
                fallback: Some(ATANH),
            },
        ),
        ("fabs", f1(FABS)),
        ("floor", f1(FLOOR)),
        ("ceil", f1(CEIL)),
        ("trunc", f1(TRUNC)),
        ("rint", f1(ROUND_EVEN)),
        ("degrees", f1s(DEGREES)),
        ("radians", f1s(RADIANS)),
        ("sign", f1(FSIGN)),
        (
            "pow",
            Library {
                func: "__ferrocl_pow",
                arity: 2,
                fallback: Some(POW),
            },
        ),
        (
            "powr",
            Library {
                func: "__ferrocl_powr",
                arity: 2,
                fallback: Some(POW),
            },
        ),
        (
            "atan2",
            Library {
                func: "__ferrocl_atan2",
                arity: 2,
                fallback: Some(ATAN2),
            },
        ),
        (
            "fmin",
            FloatGlsl {
                op: NMIN,
                arity: 2,
                f32_only: false,
            },
        ),
        (
            "fmax",
            FloatGlsl {
                op: NMAX,
                arity: 2,
                f32_only: false,
            },
        ),
        (
            "step",
            FloatGlsl {
                op: STEP,
                arity: 2,
                f32_only: false,
            },
        ),
        // Vulkan does not promise that Fma is fused; the library's is
        // correctly rounded (the instruction only serves where no library
        // version exists).
        (
            "fma",
            Library {
                func: "__ferrocl_fma",
                arity: 3,
                fallback: Some(FMA),
            },
        ),
        (
            "erf",
            Library {
                func: "__ferrocl_erf",
                arity: 1,
                fallback: None,
            },
        ),
        (
            "erfc",
            Library {
                func: "__ferrocl_erfc",
                arity: 1,
                fallback: None,
            },
        ),
        (
            "tgamma",
            Library {
                func: "__ferrocl_tgamma",
                arity: 1,
                fallback: None,
            },
        ),
        (
            "lgamma",
            Library {
                func: "__ferrocl_lgamma",
                arity: 1,
                fallback: None,
            },
        ),
        ("lgamma_r", Special("lgamma_r")),
        (
            "mix",
            FloatGlsl {
                op: FMIX,
                arity: 3,
                f32_only: false,
            },
        ),
        (
            "smoothstep",
            FloatGlsl {
                op: SMOOTH_STEP,
                arity: 3,
                f32_only: false,
            },
        ),
        (
            "min",
            MinMax {
                fop: FMIN,
                sop: SMIN,
                uop: UMIN,
                arity: 2,
            },
        ),
        (
            "max",
            MinMax {
                fop: FMAX,
                sop: SMAX,
                uop: UMAX,
                arity: 2,
            },
        ),
        (
            "clamp",
            MinMax {
                fop: FCLAMP,
                sop: SCLAMP,
                uop: UCLAMP,
                arity: 3,
            },
        ),
        (
            "expm1",
            Library {
                func: "__ferrocl_expm1",
                arity: 1,
                fallback: None,
            },
        ),
        (
            "log1p",
            Library {
                func: "__ferrocl_log1p",
                arity: 1,
                fallback: None,
            },
        ),
        (
            "sinpi",
            Library {
                func: "__ferrocl_sinpi",
                arity: 1,
                fallback: None,
            },
        ),
        (
            "cospi",
            Library {
                func: "__ferrocl_cospi",
                arity: 1,
                fallback: None,
            },
        ),
        (
            "tanpi",
            Library {
                func: "__ferrocl_tanpi",
                arity: 1,
                fallback: None,
            },
        ),
        (
            "atanpi",
            Library {
                func: "__ferrocl_atanpi",
                arity: 1,
                fallback: None,
            },
        ),
        (
            "atan2pi",
            Library {
                func: "__ferrocl_atan2pi",
                arity: 2,
                fallback: None,
            },
        ),
        (
            "asinpi",
            Library {
                func: "__ferrocl_asinpi",
                arity: 1,
                fallback: None,
            },
        ),
        (
            "acospi",
            Library {
                func: "__ferrocl_acospi",
                arity: 1,
                fallback: None,
            },
        ),
        ("maxmag", Special("maxmag")),
        ("minmag", Special("minmag")),
        ("nan", Special("nan")),
        ("isnormal", Special("isnormal")),
        ("native_divide", Special("divide")),
        ("half_divide", Special("divide")),
        ("native_recip", Special("recip")),
        ("half_recip", Special("recip")),
        ("async_work_group_copy", Special("async_copy")),
        (
            "async_work_group_strided_copy",
            Special("async_strided_copy"),
        ),
        ("wait_group_events", Special("wait_group_events")),
        ("prefetch", Special("prefetch")),
        ("shuffle", Special("shuffle")),
        ("shuffle2", Special("shuffle2")),
        ("fract", Special("fract")),
        ("modf", Special("modf")),
        ("frexp", Special("frexp")),
        ("remquo", Special("remquo")),
        ("remainder", Special("remainder")),
        ("sincos", Special("sincos")),
        ("ilogb", Special("ilogb")),
        (
            "logb",
            Library {
                func: "__ferrocl_logb",
                arity: 1,
                fallback: None,
            },
        ),
        (
            "nextafter",
            Library {
                func: "__ferrocl_nextafter",
                arity: 2,
                fallback: None,
            },
        ),
        ("rootn", Special("rootn")),
        ("mad_sat", Special("mad_sat")),
        ("round", Special("round")),
        ("mad", Special("mad")),
        ("fmod", Special("fmod")),
        ("hypot", Special("hypot")),
        ("copysign", Special("copysign")),
        (
            "exp10",
            Library {
                func: "__ferrocl_exp10",
                arity: 1,
                fallback: None,
            },
        ),
        (
            "log10",
            Library {
                func: "__ferrocl_log10",
                arity: 1,
                fallback: None,
            },
        ),
        (
            "cbrt",
            Library {
                func: "__ferrocl_cbrt",
                arity: 1,
                fallback: None,
            },
        ),
        ("pown", Special("pown")),
        ("ldexp", Special("ldexp")),
        ("fdim", Special("fdim")),
        ("abs", Special("abs")),
        ("abs_diff", Special("abs_diff")),
        ("mad24", Special("mad24")),
        ("mul24", Special("mul24")),
        ("popcount", Special("popcount")),
        ("clz", Special("clz")),
        ("ctz", Special("ctz")),
        ("rotate", Special("rotate")),
        ("add_sat", Special("add_sat")),
        ("clock_read_device", Special("clock_read_device")),
        ("clock_read_work_group", Special("clock_read_work_group")),
        ("clock_read_sub_group", Special("clock_read_sub_group")),
        ("clock_read_hilo_device", Special("clock_read_hilo_device")),
        (
            "clock_read_hilo_work_group",
            Special("clock_read_hilo_work_group"),
        ),
        (
            "clock_read_hilo_sub_group",
            Special("clock_read_hilo_sub_group"),
        ),
        // clang's optimisation hints, which code written for other
        // compilers uses (`likely`/`unlikely` macros).
        ("__builtin_expect", Special("__builtin_expect")),
        ("__builtin_assume", Special("__builtin_assume")),
        ("bitfield_insert", Special("bitfield_insert")),
        (
            "bitfield_extract_signed",
            Special("bitfield_extract_signed"),
        ),
        (
            "bitfield_extract_unsigned",
            Special("bitfield_extract_unsigned"),
        ),
        ("bit_reverse", Special("bit_reverse")),
        ("sub_sat", Special("sub_sat")),
        ("hadd", Special("hadd")),
        ("rhadd", Special("rhadd")),
        ("mul_hi", Special("mul_hi")),
        ("mad_hi", Special("mad_hi")),
        ("upsample", Special("upsample")),
        ("dot", Special("dot")),
        ("dot_acc_sat", Special("dot_acc_sat")),
        ("dot_4x8packed_uu_uint", Special("dot_4x8packed_uu_uint")),
        ("dot_4x8packed_ss_int", Special("dot_4x8packed_ss_int")),
        ("dot_4x8packed_us_int", Special("dot_4x8packed_us_int")),
        ("dot_4x8packed_su_int", Special("dot_4x8packed_su_int")),
        (
            "dot_acc_sat_4x8packed_uu_uint",
            Special("dot_acc_sat_4x8packed_uu_uint"),
        ),
        (
            "dot_acc_sat_4x8packed_ss_int",
            Special("dot_acc_sat_4x8packed_ss_int"),
        ),
        (
            "dot_acc_sat_4x8packed_us_int",
            Special("dot_acc_sat_4x8packed_us_int"),
        ),
        (
            "dot_acc_sat_4x8packed_su_int",
            Special("dot_acc_sat_4x8packed_su_int"),
        ),
        ("cross", Special("cross")),
        ("length", Special("length")),
        ("normalize", Special("normalize")),
        ("distance", Special("distance")),
        ("isnan", Special("isnan")),
        ("isinf", Special("isinf")),
        ("isfinite", Special("isfinite")),
        ("signbit", Special("signbit")),
        ("isequal", Special("isequal")),
        ("isnotequal", Special("isnotequal")),
        ("isgreater", Special("isgreater")),
        ("isgreaterequal", Special("isgreaterequal")),
        ("isless", Special("isless")),
        ("islessequal", Special("islessequal")),
        ("islessgreater", Special("islessgreater")),
        ("isordered", Special("isordered")),
        ("isunordered", Special("isunordered")),
        ("any", Special("any")),
        ("all", Special("all")),
        ("select", Special("select")),
        ("bitselect", Special("bitselect")),
        ("printf", Special("printf")),
    ]
};

/// The built-in library's source, and whether a program may need it.
pub const LIBRARY_SOURCE: &str = include_str!("library.cl");
/// Its double-precision half, built when the device has cl_khr_fp64: each
/// function is the float one's name with `_f64` appended.
pub const LIBRARY_FP64_SOURCE: &str = include_str!("library_fp64.cl");

pub fn uses_library(identifier: &str) -> bool {
    // `half_exp10` and `native_exp10` are the library's exp10 too.
    let identifier = identifier
        .strip_prefix("half_")
        .or_else(|| identifier.strip_prefix("native_"))
        .unwrap_or(identifier);
    // Special built-ins whose lowering calls the library; 64-bit mad_sat is
    // in the library too.
    matches!(
        identifier,
        "pown"
            | "rootn"
            | "ilogb"
            | "mad_sat"
            | "lgamma_r"
            | "fmod"
            | "hypot"
            | "remainder"
            | "remquo"
            | "ldexp"
            | "sincos"
            | "length"
            | "distance"
            | "normalize"
            | "fast_length"
            | "fast_distance"
            | "fast_normalize"
    ) || TABLE
        .iter()
        .any(|(n, b)| *n == identifier && matches!(b, Builtin::Library { .. }))
}

/// Finds the built-in `name`, or `None` if there is none.
pub fn lookup(name: &str) -> Option<Builtin> {
    let base = name
        .strip_prefix("native_")
        .or_else(|| name.strip_prefix("half_"))
        .or_else(|| name.strip_prefix("fast_"))
        .unwrap_or(name);
    if let Some((_, b)) = TABLE.iter().find(|(n, _)| *n == name || *n == base) {
        // `native_*` has implementation-defined precision: the
        // GLSL.std.450 instruction serves. `half_*` must stay within 8192
        // ulp, which Vulkan's log and pow do not promise near 1: it uses the
        // library.
        if let (
            Builtin::Library {
                arity,
                fallback: Some(op),
                ..
            },
            true,
        ) = (b, name.starts_with("native_"))
        {
            return Some(Builtin::FloatGlsl {
                op: *op,
                arity: *arity,
                f32_only: true,
            });
        }
        return Some(b.clone());
    }
    if let Some(b) = synchronization_builtin(name) {
        return Some(b);
    }
    if let Some(rest) = name.strip_prefix("convert_") {
        return parse_convert(rest);
    }
    if let Some(rest) = name.strip_prefix("as_") {
        return type_named(rest).map(Builtin::AsType);
    }
    for (prefix, aligned) in [("vload_half", false), ("vloada_half", true)] {
        if let Some(n) = name.strip_prefix(prefix) {
            return half_count(n).map(|n| Builtin::VLoadHalf(n, half_stride(n, aligned)));
        }
    }
    for (prefix, aligned) in [("vstore_half", false), ("vstorea_half", true)] {
        if let Some(n) = name.strip_prefix(prefix) {
            let (n, rounding) = split_rounding(n);
            return half_count(n).map(|n| {
                let stride = half_stride(n, aligned);
                Builtin::VStoreHalf(n, HalfStore { stride, rounding })
            });
        }
    }
    if let Some(n) = name.strip_prefix("vload") {
        return vector_count(n).map(Builtin::VLoad);
    }
    if let Some(n) = name.strip_prefix("vstore") {
        return vector_count(n).map(Builtin::VStore);
    }
    None
}

/// OpenCL C 2.0 atomics, work-group collectives and sub-group functions.
fn synchronization_builtin(name: &str) -> Option<Builtin> {
    if let Some(f) = sub_group_query(name) {
        return Some(Builtin::SubGroup(f));
    }
    if let Some(rest) = name.strip_prefix("atomic_") {
        let (rest, explicit) = match rest.strip_suffix("_explicit") {
            Some(r) => (r, true),
            None => (rest, false),
        };
        let op = match rest {
            "init" if !explicit => AtomicC11::Init,
            "work_item_fence" if !explicit => AtomicC11::WorkItemFence,
            "load" => AtomicC11::Load,
            "store" => AtomicC11::Store,
            "exchange" => AtomicC11::Exchange,
            "compare_exchange_strong" | "compare_exchange_weak" => AtomicC11::CompareExchange,
            "flag_test_and_set" => AtomicC11::FlagTestAndSet,
            "flag_clear" => AtomicC11::FlagClear,
            _ => AtomicC11::Fetch(match rest.strip_prefix("fetch_")? {
                "add" => AtomicOp::Add,
                "sub" => AtomicOp::Sub,
                "or" => AtomicOp::Or,
                "xor" => AtomicOp::Xor,
                "and" => AtomicOp::And,
                "min" => AtomicOp::Min,
                "max" => AtomicOp::Max,
                _ => return None,
            }),
        };
        return Some(Builtin::AtomicC11 { op, explicit });
    }
    if let Some(rest) = name.strip_prefix("work_group_") {
        // cl_khr_work_group_uniform_arithmetic adds the non-uniform sub-group
        // operations' `mul`, bitwise and logical reductions and scans.
        let extended = || {
            group_op(rest, true).filter(|op| {
                matches!(
                    op,
                    GroupOp::Reduce(_) | GroupOp::ScanInclusive(_) | GroupOp::ScanExclusive(_)
                )
            })
        };
        return group_op(rest, false)
            .or_else(extended)
            .map(Builtin::WorkGroup);
    }
    let rest = name.strip_prefix("sub_group_")?;
    let f = match rest {
        "barrier" => SubGroupFn::Barrier,
        "elect" => SubGroupFn::Elect,
        "non_uniform_all" => SubGroupFn::NonUniformAll,
        "non_uniform_any" => SubGroupFn::NonUniformAny,
        "non_uniform_all_equal" => SubGroupFn::NonUniformAllEqual,
        "non_uniform_broadcast" => SubGroupFn::NonUniformBroadcast,
        "broadcast_first" => SubGroupFn::BroadcastFirst,
        "ballot" => SubGroupFn::Ballot,
        "inverse_ballot" => SubGroupFn::InverseBallot,
        "ballot_bit_extract" => SubGroupFn::BallotBitExtract,
        "ballot_bit_count" => SubGroupFn::BallotBitCount,
        "ballot_inclusive_scan" => SubGroupFn::BallotInclusiveScan,
        "ballot_exclusive_scan" => SubGroupFn::BallotExclusiveScan,
        "ballot_find_lsb" => SubGroupFn::BallotFindLsb,
        "ballot_find_msb" => SubGroupFn::BallotFindMsb,
        "shuffle" => SubGroupFn::Shuffle,
        "shuffle_xor" => SubGroupFn::ShuffleXor,
        "shuffle_up" => SubGroupFn::ShuffleUp,
        "shuffle_down" => SubGroupFn::ShuffleDown,
        "rotate" => SubGroupFn::Rotate,
        "clustered_rotate" => SubGroupFn::ClusteredRotate,
        _ => {
            if let Some(op) = rest.strip_prefix("non_uniform_") {
                SubGroupFn::NonUniform(group_op(op, true)?)
            } else if let Some(op) = rest.strip_prefix("clustered_") {
                // Clustered reductions take every operation the
                // non-uniform ones do; there are no clustered scans.
                match group_op(op, true)? {
                    GroupOp::Reduce(arith) => SubGroupFn::ClusteredReduce(arith),
                    _ => return None,
                }
            } else {
                SubGroupFn::Collective(group_op(rest, false)?)
            }
        }
    };
    Some(Builtin::SubGroup(f))
}

/// `get_sub_group_*` and `get_*_sub_group*`: the sub-group work-item
/// functions, and the mask queries of cl_khr_subgroup_ballot.
fn sub_group_query(name: &str) -> Option<SubGroupFn> {
    Some(match name {
        "get_sub_group_size" => SubGroupFn::Size,
        "get_max_sub_group_size" => SubGroupFn::MaxSize,
        "get_num_sub_groups" => SubGroupFn::NumSubGroups,
        "get_enqueued_num_sub_groups" => SubGroupFn::EnqueuedNumSubGroups,
        "get_sub_group_id" => SubGroupFn::Id,
        "get_sub_group_local_id" => SubGroupFn::LocalId,
        "get_sub_group_eq_mask" => SubGroupFn::EqMask,
        "get_sub_group_ge_mask" => SubGroupFn::GeMask,
        "get_sub_group_gt_mask" => SubGroupFn::GtMask,
        "get_sub_group_le_mask" => SubGroupFn::LeMask,
        "get_sub_group_lt_mask" => SubGroupFn::LtMask,
        _ => return None,
    })
}

/// `all`, `any`, `broadcast`, `reduce_<op>`, `scan_inclusive_<op>`,
/// `scan_exclusive_<op>`; the non-uniform forms also take `mul` and the
/// bitwise and logical operations, and have no `all`/`any`/`broadcast`.
fn group_op(s: &str, non_uniform: bool) -> Option<GroupOp> {
    let arith = |op: &str| {
        Some(match op {
            "add" => GroupArith::Add,
            "min" => GroupArith::Min,
            "max" => GroupArith::Max,
            "mul" if non_uniform => GroupArith::Mul,
            "and" if non_uniform => GroupArith::And,
            "or" if non_uniform => GroupArith::Or,
            "xor" if non_uniform => GroupArith::Xor,
            "logical_and" if non_uniform => GroupArith::LogicalAnd,
            "logical_or" if non_uniform => GroupArith::LogicalOr,
            "logical_xor" if non_uniform => GroupArith::LogicalXor,
            _ => return None,
        })
    };
    Some(match s {
        "all" if !non_uniform => GroupOp::All,
        "any" if !non_uniform => GroupOp::Any,
        "broadcast" if !non_uniform => GroupOp::Broadcast,
        _ => {
            if let Some(op) = s.strip_prefix("reduce_") {
                GroupOp::Reduce(arith(op)?)
            } else if let Some(op) = s.strip_prefix("scan_inclusive_") {
                GroupOp::ScanInclusive(arith(op)?)
            } else {
                GroupOp::ScanExclusive(arith(s.strip_prefix("scan_exclusive_")?)?)
            }
        }
    })
}

fn half_stride(n: u8, aligned: bool) -> u8 {
    if aligned && n == 3 {
        4
    } else {
        n
    }
}

/// The rounding-mode suffix of a `vstore_half` name and what precedes it.
fn split_rounding(s: &str) -> (&str, Rounding) {
    for (suffix, r) in [
        ("_rte", Rounding::Rte),
        ("_rtz", Rounding::Rtz),
        ("_rtp", Rounding::Rtp),
        ("_rtn", Rounding::Rtn),
    ] {
        if let Some(rest) = s.strip_suffix(suffix) {
            return (rest, r);
        }
    }
    (s, Rounding::Default)
}

fn half_count(s: &str) -> Option<u8> {
    if s.is_empty() {
        Some(1)
    } else {
        vector_count(s)
    }
}

fn vector_count(s: &str) -> Option<u8> {
    match s {
        "2" => Some(2),
        "3" => Some(3),
        "4" => Some(4),
        "8" => Some(8),
        "16" => Some(16),
        _ => None,
    }
}

fn type_named(s: &str) -> Option<Type> {
    if let Some(v) = crate::sema::types::vector_from_name(s) {
        return Some(v);
    }
    match Scalar::from_name(s)? {
        Scalar::Bool => None,
        sc => Some(Type::Scalar(sc)),
    }
}

fn parse_convert(rest: &str) -> Option<Builtin> {
    let mut parts = rest.split('_');
    let ty = type_named(parts.next()?)?;
    let mut sat = false;
    let mut rounding = Rounding::Default;
    for p in parts {
        match p {
            "sat" if !sat && rounding == Rounding::Default => sat = true,
            "rte" if rounding == Rounding::Default => rounding = Rounding::Rte,
            "rtz" if rounding == Rounding::Default => rounding = Rounding::Rtz,
            "rtp" if rounding == Rounding::Default => rounding = Rounding::Rtp,
            "rtn" if rounding == Rounding::Default => rounding = Rounding::Rtn,
            _ => return None,
        }
    }
    Some(Builtin::Convert {
        to: ty,
        sat,
        rounding,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_spellings() {
        assert_eq!(lookup("native_sqrt"), lookup("sqrt"));
        assert_eq!(lookup("atom_add"), Some(Builtin::Atomic(AtomicOp::Add)));
        assert_eq!(
            lookup("convert_uchar4_sat_rte"),
            Some(Builtin::Convert {
                to: Type::Vector(Scalar::UChar, 4),
                sat: true,
                rounding: Rounding::Rte
            })
        );
        assert_eq!(
            lookup("as_float4"),
            Some(Builtin::AsType(Type::Vector(Scalar::Float, 4)))
        );
        assert_eq!(lookup("vload3"), Some(Builtin::VLoad(3)));
        assert_eq!(lookup("vload5"), None);
        assert_eq!(
            lookup("vstorea_half3_rtn"),
            Some(Builtin::VStoreHalf(
                3,
                HalfStore {
                    stride: 4,
                    rounding: Rounding::Rtn
                }
            ))
        );
        assert_eq!(
            lookup("vstore_half"),
            Some(Builtin::VStoreHalf(
                1,
                HalfStore {
                    stride: 1,
                    rounding: Rounding::Default
                }
            ))
        );
        assert_eq!(lookup("vstore_half_rtq"), None);
        assert_eq!(lookup("no_such_thing"), None);
    }
}
