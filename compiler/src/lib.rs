//! OpenCL C → Vulkan SPIR-V.
//!
//! A pure library: no GPU, no global state, thread-safe. The runtime hands it
//! source, build options, in-memory headers and a [`TargetCaps`] describing the
//! device; it returns SPIR-V words plus per-kernel reflection, or a build log.
//!
//! Pipeline (each stage its own module): [`preprocess`] (tokens out) →
//! parser → semantic analysis → lowering → SPIR-V emission → reflection.
//!
//! # The launch ABI (shared with the runtime; change both together)
//!
//! Every kernel reads a push-constant block laid out with scalar (C) layout,
//! starting with a launch header of [`ARGS_OFFSET`] bytes:
//!
//! | offset | what |
//! |---|---|
//! | 0  | `global_offset: [u64; 3]` ([`HEADER_GLOBAL_OFFSET`]) |
//! | 24 | `global_size: [u64; 3]`: the whole NDRange, not one dispatch's part ([`HEADER_GLOBAL_SIZE`]) |
//! | 48 | `group_base: [u32; 3]`: added to the work-group id ([`HEADER_GROUP_BASE`]) |
//! | 60 | `work_dim: u32` ([`HEADER_WORK_DIM`]) |
//! | 64 | the kernel arguments ([`ArgBlock::Push`]) or `args_address: u64` ([`ArgBlock::Buffer`]) |
//!
//! With [`TargetCaps::header_buffer`], when the header and the arguments
//! together would exceed [`TargetCaps::max_push_constants_size`] but the
//! arguments fit after 32 bytes, most of the header moves out instead
//! ([`ArgBlock::HeaderBuffer`]):
//!
//! | offset | what |
//! |---|---|
//! | 0  | `global_offset[0]: u64` |
//! | 8  | `global_size[0]: u64` |
//! | 16 | `group_base[0]: u32`, then 4 bytes of padding |
//! | 24 | `header_address: u64` ([`HEADER_BUFFER_ADDRESS`]): the whole header, laid out as above |
//! | 32 | the kernel arguments ([`HEADER_BUFFER_ARGS_OFFSET`]) |
//!
//! A kernel reads the dimension-0 values from the push-constant block and
//! the rest from the header buffer. Arguments live through a kernel's whole
//! body, so it is the arguments that push constants can spare registers
//! for: NVIDIA's instructions read push constants straight from its
//! constant bank, where a value loaded from a buffer holds a register for
//! as long as it lives. Which is faster depends on the kernel (hashcat's
//! kernels pass 200 to 208 bytes of arguments against NVIDIA's 256; the
//! runtime's `FERROCL_LARGE_ARGS` documents what was measured).
//!
//! Unused dimensions have global size 1 and offset 0. Offsets and sizes are
//! 64 bits because `size_t` is: ids past 2^32 are valid. 64-bit values are
//! two 32-bit words, low word first.
//!
//! The runtime may cover one NDRange with several dispatches of one kernel:
//!
//! - A dimension with more work-groups than `maxComputeWorkGroupCount`
//!   allows is split into dispatches from group 0, each with its first group
//!   id in `group_base` (a `vkCmdDispatchBase` base cannot pass the limit).
//! - A non-uniform NDRange (a global size that the local size does not
//!   divide, OpenCL 2.0 and newer) is up to 8 regions: per dimension the
//!   whole work-groups and one partial one. Each region is dispatched with a
//!   pipeline whose work-group size specialization constants
//!   ([`SPEC_ID_WORK_GROUP_SIZE`]) are that region's work-group size, and
//!   `group_base` (or the dispatch base) placing its groups; the enqueued
//!   local size specialization constants ([`SPEC_ID_ENQUEUED_LOCAL_SIZE`])
//!   are `local_work_size` in every region.
//!
//! The kernel derives everything else: `get_group_id` is `WorkgroupId`
//! plus `group_base`; `get_global_id` is the group id times the enqueued
//! local size, plus the local id and the offset; `get_local_size` is the
//! work-group size; `get_num_groups` is the global size divided by the
//! enqueued local size, rounded up.
//!
//! A kernel that calls `printf` ([`KernelInfo::uses_printf`]) receives its
//! printf buffer's device address as a hidden trailing 8-byte argument: the
//! last 8 bytes of [`KernelInfo::args_size`], 8-aligned.
//!
//! A program with program-scope `__global` variables (OpenCL C 2.0 and
//! 3.0) keeps them in one buffer per program and device, laid out in C
//! layout in declaration order; [`CompiledProgram::global_data`] holds its
//! initial bytes, which the runtime uploads once at build. Every kernel of
//! such a program receives that buffer's device address as a hidden 8-byte
//! argument right after its own arguments
//! ([`KernelInfo::global_data_offset`]), before printf's.
//!
//! # printf
//!
//! The printf buffer starts with two `u32`: the bytes used so far (the
//! runtime sets 8 before a launch) and the buffer's size in bytes. Each call
//! adds that much atomically to the first and, if its record fits, writes
//! it there (else printf returns -1 and writes nothing). A record, 8-aligned:
//! `u32` format id, `u32` record size in bytes, then per argument `u32`
//! kind, `u32` component count n (vector size, 1 for a scalar), and n
//! 8-byte components. Kinds: 0 signed integer (sign-extended to 64 bits), 1
//! unsigned integer (zero-extended), 2 float (its 32 bits in the low half;
//! half is widened to float), 3 double (its 64 bits), 4 string (the id of a
//! `%s` string literal), 5 pointer (the address, or a `__local`/`__private`
//! offset). Ids index [`CompiledProgram::printf_strings`]; the host formats
//! the records in buffer order.
//!
//! Arguments are laid out in declaration order, each at the offset and size
//! in [`KernelArg`]; offsets count from the start of the argument data (byte
//! [`ARGS_OFFSET`] of the push-constant block, or byte 0 of the argument
//! buffer). Scalars
//! and vectors take their OpenCL size and alignment (a 3-vector takes the
//! size of a 4-vector), `__global`/`__constant` pointers are 8-byte device
//! addresses, structs by value have C layout. `__local` pointer arguments
//! take no bytes: their size in bytes is the specialization constant
//! [`KernelArg::local_size_spec_id`] (ids from 3 up, unique in the module).
//! Otherwise, when the header and arguments do not fit in
//! [`TargetCaps::max_push_constants_size`], the arguments go to a buffer
//! whose device address sits at [`ARGS_OFFSET`], with the same layout
//! starting at 0.
//!
//! The work-group size is specialization constants 0, 1, 2 (x, y, z), bound to
//! the `WorkgroupSize` built-in.
//!
//! # What modules need of the device
//!
//! Besides the features of DESIGN.md: `shaderSignedZeroInfNanPreserveFloat32`
//! (and `...Float64` with fp64), because entry points declare
//! `SignedZeroInfNanPreserve` unless `-cl-mad-enable`, `-cl-no-signed-zeros`,
//! `-cl-finite-math-only` or the fast-math options relax float arithmetic.
//!
//! [`preprocess`]: crate::preprocess

pub mod arg_writes;
pub mod serialize;

/// The compiler's hash maps and sets: keyed by ids, small integers, spans
/// and short names, hashed millions of times when a large program
/// (hashcat's) is lowered, where SipHash took a fifth of the time. FxHash
/// (rustc's) is several times cheaper on such keys; nothing here is keyed
/// by input an attacker could shape into collisions that matter more than
/// the source's own size.
pub(crate) type HashMap<K, V> = rustc_hash::FxHashMap<K, V>;
pub(crate) type HashSet<K> = rustc_hash::FxHashSet<K>;
pub mod ast;
pub mod diag;
pub mod driver;
pub mod entry_module;
pub mod lower;
pub mod options;
pub mod parse;
pub mod preprocess;
pub mod sema;
pub mod spirv;
mod spirv_words;
pub mod token;

use std::fmt;

/// What the target device can do. Plain data: the compiler knows nothing of
/// Vulkan objects.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TargetCaps {
    /// SPIR-V version of the module, e.g. `(1, 5)` for Vulkan 1.2.
    pub spirv_version: (u8, u8),
    /// `maxPushConstantsSize` of the device (128 on lavapipe, 256 on NVIDIA).
    pub max_push_constants_size: u32,
    /// cl_khr_fp64 (`shaderFloat64`).
    pub fp64: bool,
    /// cl_khr_fp16 arithmetic (`shaderFloat16` + 16-bit storage).
    pub fp16: bool,
    /// `shaderInt16`.
    pub int16: bool,
    /// cl_khr_int64_base_atomics / extended (`shaderBufferInt64Atomics`).
    pub int64_atomics: bool,
    /// `__IMAGE_SUPPORT__`.
    pub images: bool,
    /// shaderIntegerDotProduct: cl_khr_integer_dot_product's built-ins
    /// become SPIR-V's dot instructions (`OpSDot` and kin) instead of
    /// 32-bit multiplies and adds.
    pub integer_dot_product: bool,
    /// shaderDenormPreserveFloat16/32/64: entry points declare
    /// `DenormPreserve` for these widths, so subnormals survive arithmetic
    /// (the device then reports `CL_FP_DENORM`).
    pub denorm_preserve_fp16: bool,
    pub denorm_preserve_fp32: bool,
    pub denorm_preserve_fp64: bool,
    /// Extensions to advertise through `cl_khr_*` macros and accept in
    /// `#pragma OPENCL EXTENSION`.
    pub extensions: Vec<String>,
    /// OpenCL C 3.0 feature macros (`__opencl_c_*`) that the device supports.
    /// `__opencl_c_generic_address_space` also says that the device's buffer
    /// addresses leave bits 62-63 clear, so that pointers the compiler cannot
    /// resolve may carry their address space there (lower/generic.rs).
    pub features: Vec<String>,
    /// The driver runs a memory fence as a work-group barrier (Mesa's
    /// llvmpipe: lavapipe). A fence, or an atomic with acquire or release
    /// semantics, in a loop that work-items leave at different times then
    /// ends the loop early for a work-group wider than one SIMD batch.
    /// Fences become relaxed read-modify-writes of a work-group word,
    /// which llvmpipe compiles to sequentially consistent CPU atomics: a
    /// full fence there (lower/atomic.rs, `memory_fence`).
    pub fences_as_atomics: bool,
    /// The driver's `Trunc` and `RoundEven` of doubles are wrong (Mesa
    /// 22.3's llvmpipe on CPUs without AVX-512: `trunc(-0.0)` is +0,
    /// `rint(0.5000000000000001)` is 0, and values past 2^24 come back
    /// unrounded): they are computed from `Floor` and `Ceil`, which are
    /// right there. Can go when lavapipe passes `icd/tests/math_edges.rs`
    /// and `conversions.rs` on such a CPU without it.
    pub f64_rounding_from_floor: bool,
    /// 64-bit rotates (`rotate` and the `(x >> n) | (x << (64 - n))`
    /// idiom) are written on the value's 32-bit halves, for a driver that
    /// compiles 64-bit shifts one by one but matches 32-bit funnel shifts
    /// (NVIDIA's: lower/rotate.rs).
    pub rotate64_in_halves: bool,
    /// The driver compiles the low half of a 64-bit shift right to one
    /// funnel shift (NVIDIA's `SHF.R.U64`): byte alignments written as
    /// `if` chains (lower/funnel.rs) become such a shift of the pair
    /// instead of two 32-bit shifts, an OR and a select.
    pub funnel_shift64: bool,
    /// The driver's GLSL.std.450 `Fma` is fused and correctly rounded for
    /// every width (NVIDIA's: `FFMA`, `DFMA`, `HFMA2`): `fma` becomes that
    /// instruction instead of the library's, which Vulkan requires where
    /// `Fma` may be a multiply and an add, and whose float version (the
    /// product and the sum in double, rounded to odd, then to float) NVIDIA's
    /// driver made about thirty instructions with double-precision adds.
    pub fused_fma: bool,
    /// Where the launch header and the arguments together pass
    /// `max_push_constants_size`, the header moves to a buffer and the
    /// arguments stay in push constants ([`ArgBlock::HeaderBuffer`]),
    /// rather than the other way round ([`ArgBlock::Buffer`]).
    pub header_buffer: bool,
    /// Functions of the program with at least this many expression nodes
    /// (counting the calls they inline) that a kernel would inline more
    /// than once are SPIR-V functions instead (lower/outline.rs); 0
    /// outlines every function it can, `usize::MAX` none.
    pub outline_min_nodes: usize,
    /// A `__private` pointer argument of an outlined call that names a
    /// struct inside a variable by constant indices (`&ctx->ipad`) passes
    /// a copy of the struct, copied back after the call, so that one copy
    /// of the function serves every member of that type
    /// (lower/outline.rs), rather than one copy per member.
    pub outline_member_copies: bool,
    /// A kernel's private word pool is one `Function` array per variable
    /// where the compiler knows which variable every access reaches
    /// (lower/split_pool.rs), rather than one array for them all.
    pub split_private_pool: bool,
    /// What a loop computes from values defined outside it is computed
    /// once before the loop (spirv/hoist.rs).
    pub hoist_loop_invariants: bool,
    /// A loop's 64-bit addresses computed from a value it makes and
    /// values set before it are split into the two, the second part
    /// computed before the loop (spirv/hoist/addresses.rs).
    pub split_loop_addresses: bool,
    /// A loop of a few constant trips whose counter indexes a private
    /// variable is lowered as copies of its body, each reading the counter
    /// as a constant (lower/unroll.rs, `full_unroll_plan`), for a driver
    /// that places arrays before it unrolls (NVIDIA's).
    pub copy_out_private_loops: bool,
    /// A variable of a split private pool that takes byte stores is an
    /// array of `uchar4` words, a byte stored through its word's component
    /// (lower/split_pool.rs), rather than merged into a `uint` word.
    pub private_byte_words: bool,
    /// A `const` local of integer type whose initializer lowers to a
    /// constant is read as that constant, and loops bounded by it count
    /// their trips as loops bounded by a literal do (lower/unroll.rs).
    pub const_locals_as_constants: bool,
    /// Every kernel declares a `Workgroup` array whose length is the
    /// specialization constant [`SPEC_ID_REGISTER_PAD`], touched behind a
    /// test that is never true (lower/register_pad.rs): a pipeline for a
    /// small launch sizes it so that the driver gives the kernel all the
    /// registers it can use.
    pub register_pad: bool,
}

impl Default for TargetCaps {
    fn default() -> Self {
        TargetCaps {
            spirv_version: (1, 5),
            max_push_constants_size: 128,
            fp64: false,
            fp16: false,
            int16: false,
            int64_atomics: false,
            images: false,
            integer_dot_product: false,
            denorm_preserve_fp16: false,
            denorm_preserve_fp32: false,
            denorm_preserve_fp64: false,
            extensions: Vec::new(),
            features: Vec::new(),
            fences_as_atomics: false,
            f64_rounding_from_floor: false,
            rotate64_in_halves: false,
            funnel_shift64: false,
            fused_fma: false,
            header_buffer: false,
            outline_min_nodes: lower::OUTLINE_MIN_NODES,
            outline_member_copies: true,
            split_private_pool: true,
            hoist_loop_invariants: true,
            split_loop_addresses: true,
            copy_out_private_loops: true,
            private_byte_words: true,
            const_locals_as_constants: true,
            register_pad: false,
        }
    }
}

/// One in-memory header, as passed to `clCompileProgram` (`input_headers`
/// with `header_include_names`).
#[derive(Clone, Debug)]
pub struct Header {
    pub name: String,
    pub source: String,
}

/// What to compile.
#[derive(Clone, Debug, Default)]
pub struct CompileRequest<'a> {
    pub source: &'a str,
    /// The options string of `clBuildProgram` / `clCompileProgram`.
    pub options: &'a str,
    pub headers: &'a [Header],
}

/// The result of a successful build.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompiledProgram {
    /// The SPIR-V module: one entry point per kernel.
    pub spirv: Vec<u32>,
    pub kernels: Vec<KernelInfo>,
    /// printf format strings and the string literals printed with `%s`,
    /// indexed by the ids in printf records (see the crate docs).
    pub printf_strings: Vec<String>,
    /// The initial contents of the program's global variable buffer: its
    /// program-scope `__global` variables at their offsets (see the crate
    /// docs). Empty when there are none.
    pub global_data: Vec<u8>,
    /// Offsets in `global_data` of 64-bit pointers initialised with the
    /// address of program-scope data (`global int *p = &x;`, `constant
    /// char *s = "..."`): each holds an offset in the buffer, to which the
    /// runtime adds the buffer's device address before uploading it.
    pub global_relocations: Vec<u32>,
    /// Bytes of program-scope and `static` `__global` variables in
    /// `global_data` (`CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE`); the
    /// rest is `__constant` data and string literals.
    pub global_variable_size: usize,
    /// Warnings (may be empty): the build log of a successful build.
    pub log: String,
}

/// Why a build failed: the build log, clang-style diagnostics with
/// `file:line:col`, the source line and a caret.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildError {
    pub log: String,
    /// True when the options string itself was invalid
    /// (`CL_INVALID_BUILD_OPTIONS` rather than `CL_BUILD_PROGRAM_FAILURE`).
    pub invalid_options: bool,
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.log)
    }
}

impl std::error::Error for BuildError {}

/// Reflection of one `__kernel` function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelInfo {
    /// Entry point name in the module (the kernel's OpenCL name).
    pub name: String,
    pub args: Vec<KernelArg>,
    /// Where the arguments live at launch.
    pub arg_block: ArgBlock,
    /// Bytes of argument data (the layout described in the crate docs).
    pub args_size: u32,
    /// `__attribute__((reqd_work_group_size(x, y, z)))`.
    pub reqd_work_group_size: Option<[u32; 3]>,
    /// `__attribute__((work_group_size_hint(x, y, z)))`.
    pub work_group_size_hint: Option<[u32; 3]>,
    /// `__attribute__((vec_type_hint(T)))`, as the type's name.
    pub vec_type_hint: Option<String>,
    /// The attribute string `CL_KERNEL_ATTRIBUTES` reports.
    pub attributes: String,
    /// Bytes of `__local` variables declared inside the kernel (not
    /// arguments).
    pub static_local_mem_size: u64,
    /// Bytes of private memory per work-item the compiler knows of: its
    /// `Function` variables and the most its private pool holds at once.
    pub private_mem_size: u64,
    /// The kernel calls `printf`.
    pub uses_printf: bool,
    /// The kernel observes nothing of its work-groups (no local ids or
    /// sizes, group ids or counts, barriers, fences, `__local` memory,
    /// sub-group or work-group functions): the runtime may run it with
    /// work-groups of any size, dimension 0 rounded up to whole groups,
    /// whose work-items past the global size return at once.
    pub ignores_work_groups: bool,
}

impl KernelInfo {
    /// Where the hidden argument holding the address of the program's
    /// global variable buffer sits in the argument data: after the
    /// kernel's own arguments, 8-aligned. Only meaningful when
    /// [`CompiledProgram::global_data`] is not empty.
    pub fn global_data_offset(&self) -> u32 {
        let end = self
            .args
            .iter()
            .filter(|a| a.kind != ArgKind::LocalPointer)
            .map(|a| a.offset + a.size)
            .max()
            .unwrap_or(0);
        end.div_ceil(8) * 8
    }
}

/// Where a kernel's arguments and launch header are at launch (see the
/// crate docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgBlock {
    /// The header, then the arguments from byte [`ARGS_OFFSET`], in the
    /// push-constant block.
    Push,
    /// The header in the push-constant block; the arguments in a buffer
    /// whose device address is at byte [`ARGS_OFFSET`].
    Buffer,
    /// The header in a buffer whose device address is at byte
    /// [`HEADER_BUFFER_ADDRESS`] of the push-constant block, its
    /// dimension-0 words also in that block ([`PUSHED_HEADER_WORDS`]); the
    /// arguments from byte [`HEADER_BUFFER_ARGS_OFFSET`] of the
    /// push-constant block.
    HeaderBuffer,
}

impl ArgBlock {
    /// Byte offset in the push-constant block of the arguments, or of the
    /// argument buffer's address ([`ArgBlock::Buffer`]).
    pub fn args_offset(self) -> u32 {
        match self {
            ArgBlock::Push | ArgBlock::Buffer => ARGS_OFFSET,
            ArgBlock::HeaderBuffer => HEADER_BUFFER_ARGS_OFFSET,
        }
    }

    /// The arguments themselves are in the push-constant block.
    pub fn args_pushed(self) -> bool {
        self != ArgBlock::Buffer
    }

    /// Bytes of the push-constant range of a kernel with `args_size`
    /// bytes of arguments.
    pub fn push_size(self, args_size: u32) -> u32 {
        let args = match self {
            ArgBlock::Push | ArgBlock::HeaderBuffer => args_size,
            ArgBlock::Buffer => 8,
        };
        (self.args_offset() + args).next_multiple_of(4)
    }
}

/// The launch header's words that the push-constant block of an
/// [`ArgBlock::HeaderBuffer`] kernel holds besides the header buffer, as
/// (word of the header, word of the push-constant block): dimension 0 of
/// the global offset, the global size and the group base, everything a
/// one-dimensional kernel's `get_global_id(0)` and bounds need.
pub const PUSHED_HEADER_WORDS: [(u32, u32); 5] = [
    (HEADER_GLOBAL_OFFSET / 4, 0),
    (HEADER_GLOBAL_OFFSET / 4 + 1, 1),
    (HEADER_GLOBAL_SIZE / 4, 2),
    (HEADER_GLOBAL_SIZE / 4 + 1, 3),
    (HEADER_GROUP_BASE / 4, 4),
];
/// Byte offset of the header buffer's device address in the push-constant
/// block of an [`ArgBlock::HeaderBuffer`] kernel (after
/// [`PUSHED_HEADER_WORDS`], 8-aligned).
pub const HEADER_BUFFER_ADDRESS: u32 = 24;
/// Byte offset of the arguments in the push-constant block of an
/// [`ArgBlock::HeaderBuffer`] kernel.
pub const HEADER_BUFFER_ARGS_OFFSET: u32 = HEADER_BUFFER_ADDRESS + 8;

/// Identifies this compiler's build: a hash of its sources (build.rs). Two
/// builds with the same id compile every request alike, so the runtime's
/// on-disk cache keys its entries by it.
pub const BUILD_ID: &str = env!("FERROCL_COMPILER_BUILD_ID");

/// Byte offset of the arguments (or of the argument-buffer address) in the
/// push-constant block: the size of the launch header.
pub const ARGS_OFFSET: u32 = 64;
/// Byte offset of `global_offset: [u64; 3]` in the launch header.
pub const HEADER_GLOBAL_OFFSET: u32 = 0;
/// Byte offset of `global_size: [u64; 3]` in the launch header.
pub const HEADER_GLOBAL_SIZE: u32 = 24;
/// Byte offset of `group_base: [u32; 3]` in the launch header.
pub const HEADER_GROUP_BASE: u32 = 48;
/// Byte offset of `work_dim: u32` in the launch header.
pub const HEADER_WORK_DIM: u32 = 60;
/// Specialization constant ids of the work-group size (of the region being
/// dispatched).
pub const SPEC_ID_WORK_GROUP_SIZE: [u32; 3] = [0, 1, 2];
/// Specialization constant ids of the enqueued local size. Far above the ids
/// of `__local` argument sizes, which count up from 3.
pub const SPEC_ID_ENQUEUED_LOCAL_SIZE: [u32; 3] = [0x7fff_0000, 0x7fff_0001, 0x7fff_0002];
/// Specialization constant id of the register pad's length in 32-bit words
/// ([`TargetCaps::register_pad`]).
pub const SPEC_ID_REGISTER_PAD: u32 = 0x7fff_0010;

/// One kernel argument.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelArg {
    pub name: String,
    /// `CL_KERNEL_ARG_TYPE_NAME`: e.g. `float*`, `uint4`, `struct point`.
    pub type_name: String,
    pub address_qualifier: AddressQualifier,
    pub access_qualifier: AccessQualifier,
    /// `CL_KERNEL_ARG_TYPE_*` bits: const 1, restrict 2, volatile 4, pipe 8.
    pub type_qualifier: u32,
    pub kind: ArgKind,
    /// Offset in the argument block; meaningless for [`ArgKind::LocalPointer`].
    pub offset: u32,
    /// Bytes `clSetKernelArg` must be given (8 for a pointer, the type size
    /// for values); 0 for a `__local` pointer, whose size is free.
    pub size: u32,
    /// For a `__local` pointer: the specialization constant holding its size
    /// in bytes.
    pub local_size_spec_id: Option<u32>,
}

/// `CL_KERNEL_ARG_ADDRESS_*`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddressQualifier {
    Global,
    Local,
    Constant,
    Private,
}

/// `CL_KERNEL_ARG_ACCESS_*`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessQualifier {
    ReadOnly,
    WriteOnly,
    ReadWrite,
    None,
}

/// How the runtime passes an argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgKind {
    /// A scalar, vector or struct passed by value: `size` bytes copied.
    Value,
    /// A `__global` or `__constant` pointer: a `cl_mem` (or NULL) whose device
    /// address (plus sub-buffer offset) is written as 8 bytes.
    Buffer,
    /// A `__local` pointer: `clSetKernelArg(k, i, size, NULL)`.
    LocalPointer,
    /// `image*_t`: an image memory object whose image descriptor's device
    /// address is written as 8 bytes (docs/images.md).
    Image,
    /// `sampler_t`: a sampler whose `CLK_*` bits are written as 8 bytes
    /// (docs/images.md).
    Sampler,
}

/// Compiles OpenCL C source to SPIR-V for `caps`.
///
/// Never panics on any input: every problem is a [`BuildError`].
pub fn compile(
    request: &CompileRequest<'_>,
    caps: &TargetCaps,
) -> Result<CompiledProgram, BuildError> {
    driver::compile(request, caps)
}
