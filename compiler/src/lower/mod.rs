//! Lowering: the typed walk over the syntax tree that emits SPIR-V-shaped
//! code. Types every expression by the OpenCL C rules of [`crate::sema`],
//! inserts the implicit conversions, inlines calls (OpenCL C has no
//! recursion; it is detected and diagnosed), but for large functions a
//! kernel would inline more than once, which `outline.rs` makes SPIR-V
//! functions of the kernel, and writes structured control
//! flow (selection and loop merges, switch with fall-through) straight into
//! a [`FunctionWriter`] per kernel: the writer's blocks are the IR.
//!
//! Memory follows the design: `__global`/`__constant` pointers are 64-bit
//! device addresses, converted to `PhysicalStorageBuffer` pointers at each
//! access with the C alignment; `__local` and `__private` pointers are a
//! compile-time base (a variable and an access path) plus a 32-bit element
//! index, so every access goes through the variable's own type. A program
//! that casts to `__local` (or `__private`) pointers, or keeps unions there,
//! puts that memory in a word pool instead: one array of 32-bit words per
//! kernel, pointers being byte offsets, every access composed from words;
//! a private variable's slot is free again once its block or call ends,
//! and where every pointer can be followed to its variable each private
//! slot is an array of its own (`split_pool.rs`).
//! What neither form covers is diagnosed rather than miscompiled.

mod addressed;
mod atomic;
mod bit_ops;
mod builtin;
mod clock;
mod collective;
mod constant_table;
mod expr;
mod funnel;
mod generic;
mod image;
mod integer_dot;
mod majority;
mod outline;
pub use outline::MIN_NODES as OUTLINE_MIN_NODES;
mod program_data;
mod register_pad;
mod reinterpret;
mod rotate;
mod split_pool;
pub(crate) use image::uses_image_library;
mod subgroup;
mod unroll;
mod vector_data;
mod work_groups;
mod workitem;

use crate::ast::*;
use crate::diag::Diagnostics;
use crate::sema::builtins::glsl;
use crate::sema::consteval::{self, ConstVal};
use crate::sema::types::{AddrSpace, Scalar, Type, TypeRef, TypeTable};
use crate::spirv::{
    BuiltIn, Capability, ConstKey, Decoration, FunctionWriter, ModuleWriter, Op, Operands,
    StorageClass, TypeKey, Word,
};
use crate::token::Span;
use crate::{
    AccessQualifier, AddressQualifier, ArgBlock, ArgKind, KernelArg, KernelInfo, TargetCaps,
    ARGS_OFFSET, HEADER_BUFFER_ADDRESS, HEADER_BUFFER_ARGS_OFFSET, PUSHED_HEADER_WORDS,
    SPEC_ID_WORK_GROUP_SIZE,
};
use crate::{HashMap, HashSet};
use std::collections::BTreeSet;
use std::rc::Rc;

type R<T> = Option<T>;

/// `MemoryAccess` bits.
const MA_ALIGNED: u32 = 0x2;
const MA_NON_PRIVATE: u32 = 0x20;
/// The largest `__private`, `__local` or program-scope variable: bigger
/// ones exceed every device's memory for them, and would take the compiler
/// long to initialise element by element.
const MAX_VARIABLE_BYTES: u32 = 1 << 20;
/// The largest argument passed by value (`CL_DEVICE_MAX_PARAMETER_SIZE`
/// must be at least 1024).
const MAX_ARG_BYTES: u32 = 4096;
/// Scopes.
const SCOPE_DEVICE: u32 = 1;
const SCOPE_WORKGROUP: u32 = 2;
const SCOPE_SUBGROUP: u32 = 3;
/// Memory semantics bits.
const SEM_ACQ_REL: u32 = 0x8;
const SEM_UNIFORM: u32 = 0x40;
const SEM_WORKGROUP: u32 = 0x100;
const SEM_AVAILABLE: u32 = 0x2000;
const SEM_VISIBLE: u32 = 0x4000;

/// Where a `__local`/`__private` pointer points: a variable, a constant
/// access path inside it, and whether the pointer indexes an array there.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct LBase {
    root: Word,
    sc: StorageClass,
    /// Indices into `root`: constants, or (where `saved`) `Function`
    /// variables holding an index computed where the pointer was made, so
    /// every use loads it afresh wherever it is.
    path: Vec<Word>,
    saved: Vec<bool>,
    elem: Type,
    is_array: bool,
}

/// A value: its id and type; for `__local`/`__private` pointers the id is
/// the element index and `base` what it indexes.
#[derive(Clone, Debug)]
pub(crate) struct Val {
    id: Word,
    ty: Type,
    base: Option<Rc<LBase>>,
}

impl Val {
    fn new(id: Word, ty: Type) -> Val {
        Val { id, ty, base: None }
    }
}

/// An lvalue.
#[derive(Clone, Debug)]
pub(crate) enum Place {
    /// Inside a variable: `root` then the access path. `dynamic` marks the
    /// path entries that are not constants; `in_array` says the last entry
    /// indexes an array.
    Var {
        root: Word,
        sc: StorageClass,
        path: Vec<Word>,
        dynamic: Vec<bool>,
        in_array: bool,
        ty: Type,
    },
    /// Global or constant memory at a 64-bit address.
    Addr {
        addr: Word,
        ty: Type,
        align: u32,
        space: AddrSpace,
    },
    /// In the `__local` word pool at a byte offset.
    Pool {
        offset: Word,
        ty: Type,
        sc: StorageClass,
    },
    /// Components of a vector lvalue.
    Swizzle {
        base: Box<Place>,
        comps: Vec<u32>,
        ty: Type,
    },
}

impl LocalPool {
    fn new(var: Word, args_bytes: Word, storage: StorageClass, pointers: bool) -> LocalPool {
        LocalPool {
            var,
            args_bytes,
            static_bytes: 0,
            top: 0,
            reserved: Vec::new(),
            storage,
            pointers,
            split: None,
        }
    }

    /// The byte offset of a new variable of `size` bytes and alignment
    /// `align`: at the top, past any reserved range it would overlap.
    fn place(&mut self, size: u32, align: u32) -> u32 {
        let align = align.max(4);
        let mut at = crate::sema::types::round_up(self.top, align);
        while let Some(&(_, end)) = self
            .reserved
            .iter()
            .find(|&&(start, end)| at < end && start < at + size.max(1))
        {
            at = crate::sema::types::round_up(end, align);
        }
        self.top = crate::sema::types::round_up(at + size, 4);
        self.static_bytes = self.static_bytes.max(self.top);
        at
    }
}

impl Place {
    fn ty(&self) -> &Type {
        match self {
            Place::Var { ty, .. }
            | Place::Addr { ty, .. }
            | Place::Swizzle { ty, .. }
            | Place::Pool { ty, .. } => ty,
        }
    }
}

#[derive(Clone, Debug)]
struct Sym {
    root: Word,
    sc: StorageClass,
    ty: Type,
    /// For a variable holding a `__local`/`__private` pointer: its target.
    base: Option<Rc<LBase>>,
    /// A `__local` variable in the word pool: its byte offset there.
    pool: Option<Word>,
}

/// A run-time index of elements `words` words long, added to a pool
/// offset or (`sub`) taken from it.
#[derive(Clone, Copy)]
struct WordStep {
    index: Word,
    words: u32,
    sub: bool,
}

/// Steps of a pool offset's word count followed at most this deep.
const MAX_WORD_STEPS: usize = 8;

/// A pointer to a word of a pool: a `uint`, or the `uchar4` of a split
/// pool variable that takes byte stores (see [`split_pool`]).
#[derive(Clone, Copy)]
struct PoolWord {
    ptr: Word,
    bytes: bool,
}

/// The `__local` word pool of a kernel whose program reinterprets local
/// memory (DESIGN.md): one `Workgroup` array of 32-bit words; `__local`
/// pointers are byte offsets into it; narrower and wider accesses are
/// composed from words, sub-word stores with atomic and/or so neighbouring
/// bytes written by other work-items survive.
struct LocalPool {
    var: Word,
    /// Bytes taken by `__local` pointer arguments (a specialization-constant
    /// expression); kernel-scope `__local` variables follow them.
    args_bytes: Word,
    /// Bytes the pool holds: the most its variables ever took at once.
    static_bytes: u32,
    /// Where the next variable goes. `__private` variables live as long as
    /// their block or the call that made them: leaving one gives their
    /// bytes back to the variables that follow, so the pool grows with
    /// the deepest nesting rather than with every inlined call.
    top: u32,
    /// Byte ranges that stay taken: the variables of functions the kernel
    /// calls as SPIR-V functions, which may be live under any caller.
    reserved: Vec<(u32, u32)>,
    /// The pool variable's storage class: `Workgroup` for `__local`;
    /// `Function` for `__private`, or `Private` where the kernel calls
    /// functions of its own that reach the pool (see [`outline`]).
    storage: StorageClass,
    /// Pointers into the space are byte offsets into the pool, and every
    /// variable that may be addressed lives there; otherwise only unions
    /// do, and pointers stay typed (`PoolUse`).
    pointers: bool,
    /// A `__private` pool whose variables each have an array of their own
    /// (see [`split_pool`]).
    split: Option<split_pool::SplitPool>,
}

/// What lives at a point of the function being lowered, to give back
/// with `Lowerer::release_private` what was made after it.
#[derive(Clone, Copy)]
struct PrivateMark {
    /// The private pool's top.
    pool: Option<u32>,
    /// `Lowerer::private_live`.
    live: u64,
}

/// What a function needs of a word pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum PoolUse {
    /// Its unions, none of them addressed, take slots; pointers into the
    /// space stay typed (a variable and an index).
    Unions,
    /// It reinterprets memory through pointers or takes the address of a
    /// union: pointers into the space are byte offsets into the pool, and
    /// every variable that may be addressed lives there.
    Pointers,
}

/// The blocks of a loop opened by `Lowerer::enter_checked_loop`.
struct CheckedLoop {
    header: Word,
    body: Word,
    cont: Word,
    merge: Word,
}

/// A construct that `break` leaves.
struct Breakable {
    merge: Word,
    /// `None` for a switch (its `continue` belongs to the enclosing loop).
    cont: Option<Word>,
    kind: Construct,
}

/// What a [`Breakable`] is in the source.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Construct {
    Loop,
    Switch,
    /// The statements from a forward `goto name` to the label: a
    /// single-iteration loop whose merge is where `name:` begins.
    GotoForward(String),
    /// The statements from `name:` to its last backward `goto name`: a
    /// loop that such a goto continues and falling off the end leaves.
    GotoBackward(String),
}

/// A `break`, `continue` or `goto` that leaves more than the innermost
/// construct. Structured control flow lets a branch leave only the
/// innermost loop or switch, so the jump sets `flag` and leaves construct
/// by construct: after each merge in between the flag is tested.
struct PendingJump {
    flag: Word,
    /// Index in `breakables` of the construct the jump lands in.
    target: usize,
    /// Lands on the target's continue block rather than its merge.
    to_continue: bool,
}

/// Statements `start..end` of one block that lower as one goto construct.
#[derive(Clone, Debug)]
struct GotoRegion {
    start: usize,
    end: usize,
    label: String,
    backward: bool,
}

/// An inlined call.
struct Frame {
    ret_ty: Type,
    ret_var: Option<Word>,
    /// The function returns a generic pointer (OpenCL C 2.0 and 3.0): the
    /// first `return` fixes its address space, and `ret_var` is made then.
    generic_ret: bool,
    /// What a returned `__local`/`__private` pointer points into.
    ret_base: Option<Rc<LBase>>,
    /// With early returns: the flag set by `return` and the merge of the
    /// single-iteration loop the body is wrapped in.
    flag: Option<Word>,
    exit: Word,
    breakables_at_entry: usize,
}

struct KernelState {
    push_var: Word,
    block: ArgBlock,
    interface: BTreeSet<Word>,
    builtins: HashMap<u32, Word>,
    /// The work-group word that fences update with `fences_as_atomics`.
    fence_word: Option<Word>,
    /// Where the printf buffer's address sits in the argument data.
    printf_offset: Option<u32>,
    /// Where the program's global variable buffer's address sits in the
    /// argument data.
    global_data_offset: Option<u32>,
}

pub(crate) struct Lowerer<'a> {
    m: ModuleWriter,
    types: &'a TypeTable,
    funcs: HashMap<&'a str, &'a FuncDef>,
    diags: &'a mut Diagnostics,
    caps: &'a TargetCaps,
    globals: HashMap<String, Sym>,
    global_vars: Vec<Word>,
    wg_size: Option<Word>,
    /// The enqueued local size specialization constants, made once per
    /// module like `wg_size`.
    enqueued_size: Option<Word>,
    next_spec_id: u32,
    f: FunctionWriter,
    scopes: Vec<HashMap<&'a str, Sym>>,
    breakables: Vec<Breakable>,
    jumps: Vec<PendingJump>,
    frames: Vec<Frame>,
    call_stack: Vec<&'a str>,
    k: KernelState,
    static_local_bytes: u64,
    /// `CL_KERNEL_PRIVATE_MEM_SIZE` of the kernel being lowered: the most
    /// bytes of its `Function` variables live at once, and its private
    /// pool.
    private_bytes: u64,
    /// Bytes of `Function` variables live at the point being lowered.
    private_live: u64,
    float_mode: FloatMode,
    /// Nesting of `lower_dead`: instructions then go nowhere, so nothing
    /// at module level may name them.
    dead: usize,
    /// Nesting of inlined built-in library functions, whose arithmetic is
    /// always exact.
    in_library: usize,
    /// printf format strings and `%s` string literals, by id.
    printf_strings: Vec<String>,
    /// Functions some kernel calls.
    called: crate::HashSet<&'a str>,
    /// The `__local` word pool of the kernel being lowered, where it
    /// reinterprets `__local` memory, itself or in a function it calls
    /// (`open_pools`).
    pool: Option<LocalPool>,
    /// Its `__private` word pool, where it keeps unions in private memory
    /// or reinterprets it: its unions, and with `LocalPool::pointers`
    /// every variable that may be addressed, live there.
    ppool: Option<LocalPool>,
    /// The program's functions that need the `__local` and the
    /// `__private` pool, and what for (`pool_modes`).
    local_pool_users: HashMap<&'a str, PoolUse>,
    private_pool_users: HashMap<&'a str, PoolUse>,
    /// By function: the variables that may have their address taken,
    /// which alone take private pool slots (see `addressed`); filled as
    /// functions are lowered.
    addressed: HashMap<&'a str, HashSet<&'a str>>,
    /// Vulkan has no 8- and 16-component vectors (`Vector16` is a kernel
    /// capability), so those are arrays; component-wise instructions on
    /// them are split per component. Array type → (element type, count).
    wide_types: HashMap<Word, (Word, u32)>,
    /// Values of such types → their type.
    wide_vals: HashMap<Word, Word>,
    /// Wide values already stored to a `Function` variable for a dynamic
    /// component read → (variable, block of the store): further reads in
    /// that block index the same variable (a shuffle reads one source up
    /// to 16 times; a variable per read cost NVIDIA's compiler 64 KiB of
    /// stack per work-item for the CTS's shuffle kernels).
    wide_spills: HashMap<Word, (Word, Word)>,
    /// `__OPENCL_C_VERSION__` of the build (`-cl-std`), e.g. 120 or 300.
    cl_version: u32,
    /// The initial bytes of the program's global variable buffer.
    global_data: Vec<u8>,
    /// String literals outside printf: their offsets in that buffer.
    string_literals: HashMap<Vec<u8>, u32>,
    /// Whether an operand of `&&`/`||` with side effects is a vector, by
    /// the expression's address (see `is_vector_expr`).
    vector_exprs: HashMap<usize, bool>,
    /// Offsets in that buffer of pointers to program-scope data: each
    /// holds an offset in the buffer, to which the runtime adds the
    /// buffer's device address.
    global_relocations: Vec<u32>,
    /// Such pointers of the initializer being written, relative to its
    /// variable.
    init_relocations: Vec<usize>,
    /// Bytes of `__global` variables placed in that buffer, with the
    /// padding before each.
    global_variable_size: usize,
    /// The bytes the last `place_global_data` took: the variable and the
    /// padding that aligns it.
    last_placement_bytes: usize,
    /// Type ids of 64-bit integer scalars and vectors, with their type, and
    /// the values known to have one of them (see
    /// `signed_64_bit_ordering`).
    int64_types: HashMap<Word, Type>,
    int64_vals: HashMap<Word, Word>,
    /// Results of `OpIAdd(base, constant)`: id -> (base, constant), so that
    /// a chain of constant offsets (`p + 2`, then component 5 of a vload)
    /// becomes one add (`fold_integer_constants`).
    constant_offsets: HashMap<Word, (Word, u64)>,
    /// How many low bits of a 32-bit integer value are known to be zero
    /// (`x * 64`: six), where any are: an index `t + c` whose constant `c`
    /// fits below them cannot carry, so its address splits into `t`'s and
    /// a constant offset (`pointer_add`).
    low_zero_bits: HashMap<Word, u32>,
    /// The constituents of each `OpCompositeConstruct` that has one per
    /// element, so that extracting an element right away is that element.
    constructed: HashMap<Word, Vec<Word>>,
    /// `static` variables of functions, by declaration.
    function_statics: HashMap<Span, Sym>,
    /// Generic pointer variables (declared without an address space,
    /// OpenCL C 2.0 and 3.0) whose address space no assignment has fixed
    /// yet, by variable (root, pool slot).
    generic_vars: crate::HashSet<(Word, Option<Word>)>,
    /// The translation unit being lowered (its unroll hints, and what
    /// loop unrolling needs to know of the whole program).
    tu: &'a TranslationUnit,
    /// Names whose address the program takes, and its functions: made
    /// from `tu` when the first loop that may be unrolled is met.
    program_names: std::cell::OnceCell<unroll::ProgramNames<'a>>,
    /// The counters of the loops being unrolled completely, innermost
    /// last, with their type and their value in the copy being lowered:
    /// reads of them are constants there (unroll.rs).
    unrolled_counters: Vec<(&'a str, Type, i64)>,
    /// Variables declared `const`, by (root, pool slot).
    const_vars: crate::HashSet<(Word, Option<Word>)>,
    /// `const` integer locals whose initializer lowered to a constant, by
    /// (root, pool slot): the constant, which reads of them give
    /// ([`Lowerer::note_constant_local`]).
    constant_locals: HashMap<(Word, Option<Word>), Word>,
    /// The module's register pad, once a kernel has declared it
    /// ([`register_pad`]).
    register_pad_var: Option<Word>,
    /// `Private` copies of `__constant` tables read by name, by offset in
    /// the data buffer (see [`constant_table`]).
    constant_tables: HashMap<u32, constant_table::ConstantTable>,
    /// Image library functions emitted as SPIR-V functions of this module.
    image_functions: HashMap<&'a str, image::OutlinedFunction>,
    /// The program's calls between its own functions (see [`outline`]).
    call_graph: outline::CallGraph<'a>,
    /// The functions the kernel being lowered calls as SPIR-V functions,
    /// with the function control each carries (`outline::DONT_INLINE`
    /// or none), and those emitted so far, by name and parameter types.
    outlined: HashMap<&'a str, u32>,
    user_functions: HashMap<(&'a str, Vec<outline::OutlinedParam>), Word>,
    /// The pointer type of each variable a `__local` or `__private`
    /// pointer's compile-time target may be (`LBase::root`), so that an
    /// outlined function can take the variable as a parameter.
    root_types: HashMap<Word, Word>,
    /// A compiled object of `clCompileProgram`: `extern` variables and
    /// functions that another unit of a later `clLinkProgram` may define
    /// are not errors here (the object's module is never run).
    object: bool,
    /// Generic pointers are tagged 64-bit values resolved at run time
    /// (see [`generic`]): `__private`/generic pointers are addresses, and
    /// every `__local` and `__private` object lives in a word pool.
    generic_dynamic: bool,
    /// Resolving generic pointers at compile time hit something only the
    /// tagged form handles, so the program is lowered again with it.
    generic_limit: bool,
    /// Kernels whose private pool stays whole: splitting it failed in an
    /// earlier attempt (see [`split_pool`]).
    unsplit: HashSet<String>,
    /// The kernel being lowered may split its private pool.
    split_pools: bool,
    /// An access of the kernel being lowered reached a split pool at an
    /// offset whose variable is not known.
    split_failed: bool,
    /// Kernels of this attempt whose split failed.
    split_failures: Vec<String>,
    /// Pool offsets computed as another offset plus a constant: that
    /// offset and the bytes added (see `pool_word_ptr`).
    pool_offset_parts: HashMap<Word, (Word, u32)>,
    /// Pool offsets computed as another offset plus (or minus) a run-time
    /// index of elements a whole number of words long: that offset and
    /// the step (see `pool_word_ptr`).
    pool_offset_steps: HashMap<Word, (Word, WordStep)>,
    /// The program calls atomic functions that can act on floats:
    /// `__local` floats and doubles are held as integer bits (see
    /// [`atomic`]).
    local_float_bits: bool,
    /// `Workgroup` variables holding floats as integer bits.
    float_bits_roots: crate::HashSet<Word>,
}

/// Lowers a checked translation unit to a SPIR-V module and reflection.
/// `library` is the parsed built-in library when the program may call into
/// it.
/// What lowering produces.
pub struct Lowered {
    pub spirv: Vec<Word>,
    pub kernels: Vec<KernelInfo>,
    pub printf_strings: Vec<String>,
    /// The initial contents of the program's global variable buffer (see
    /// the crate docs); empty when the program has no `__global`
    /// variables.
    pub global_data: Vec<u8>,
    /// Offsets in `global_data` of 64-bit pointers to program-scope data,
    /// which hold an offset in the buffer until the buffer's device address
    /// is added.
    pub global_relocations: Vec<u32>,
    /// Bytes of `__global` variables among `global_data`.
    pub global_variable_size: usize,
}

/// How strictly float arithmetic follows IEEE rules, from the build options.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FloatMode {
    /// `-cl-mad-enable` and the options that imply it: the program's
    /// `a * b + c` may be fused (the Vulkan compiler may then also
    /// reassociate; the built-in library stays exact regardless).
    pub relaxed_arithmetic: bool,
    /// `-cl-fast-relaxed-math`, `-cl-unsafe-math-optimizations`: math
    /// built-ins use the GLSL.std.450 instructions directly.
    pub native_math: bool,
    /// `-cl-no-signed-zeros`, `-cl-finite-math-only` and the options above:
    /// signed zeros, infinities and NaNs need not survive arithmetic.
    pub relaxed_specials: bool,
}

/// The value of a named integer constant of OpenCL C that is not a macro
/// (`CLK_GLOBAL_MEM_FENCE`, the image and sampler `CLK_*` names,
/// `memory_order_*`, `memory_scope_*`), for constant expressions such as
/// `case` labels and array sizes.
pub(crate) fn builtin_constant(name: &str) -> Option<i64> {
    let fence = match name {
        "CLK_LOCAL_MEM_FENCE" => Some(1),
        "CLK_GLOBAL_MEM_FENCE" => Some(2),
        "CLK_IMAGE_MEM_FENCE" => Some(4),
        _ => None,
    };
    fence
        .or_else(|| image::image_constant(name))
        .or_else(|| atomic::memory_enumerator(name).map(i64::from))
}

pub fn lower(
    tu: &TranslationUnit,
    library: Option<&TranslationUnit>,
    caps: &TargetCaps,
    float_mode: FloatMode,
    cl_version: u32,
    object: bool,
    diags: &mut Diagnostics,
) -> Option<Lowered> {
    // Generic pointers resolved at compile time first: ordinary kernels
    // keep typed variables and pay nothing for the tagged form.
    let before = diags.clone();
    let mut attempt = Attempt::default();
    loop {
        let lowered = lower_once(
            tu,
            library,
            caps,
            float_mode,
            cl_version,
            object,
            diags,
            &mut attempt,
        );
        if lowered.is_some() && !attempt.split_failures.is_empty() {
            // Again, with those kernels' private pools whole.
            let failed = std::mem::take(&mut attempt.split_failures);
            attempt.unsplit.extend(failed);
        } else if lowered.is_none()
            && attempt.generic_limit
            && !attempt.generic_dynamic
            && generic::tags_fit(caps)
        {
            attempt.generic_dynamic = true;
        } else {
            return lowered;
        }
        *diags = before.clone();
    }
}

/// One lowering of a program: how it goes, and what it found that calls
/// for another.
#[derive(Default)]
struct Attempt {
    /// Generic pointers are tagged values (see [`generic`]).
    generic_dynamic: bool,
    /// Kernels that keep their private pool whole (see [`split_pool`]).
    unsplit: HashSet<String>,
    /// Found: resolving generic pointers at compile time is not enough.
    generic_limit: bool,
    /// Found: kernels whose private pool could not be split.
    split_failures: Vec<String>,
}

#[allow(clippy::too_many_arguments)]
fn lower_once(
    tu: &TranslationUnit,
    library: Option<&TranslationUnit>,
    caps: &TargetCaps,
    float_mode: FloatMode,
    cl_version: u32,
    object: bool,
    diags: &mut Diagnostics,
    attempt: &mut Attempt,
) -> Option<Lowered> {
    let mut funcs = HashMap::default();
    for f in library.iter().flat_map(|l| &l.funcs).chain(&tu.funcs) {
        declare_function(&mut funcs, f, diags);
    }
    let mut m = ModuleWriter::new();
    let entry = m.id();
    let mut l = Lowerer {
        m,
        tu,
        program_names: std::cell::OnceCell::new(),
        unrolled_counters: Vec::new(),
        types: &tu.types,
        funcs,
        diags,
        caps,
        globals: HashMap::default(),
        global_vars: Vec::new(),
        wg_size: None,
        enqueued_size: None,
        next_spec_id: 3,
        f: FunctionWriter::new(entry),
        scopes: Vec::new(),
        breakables: Vec::new(),
        jumps: Vec::new(),
        frames: Vec::new(),
        call_stack: Vec::new(),
        k: KernelState {
            push_var: 0,
            block: ArgBlock::Push,
            interface: BTreeSet::new(),
            builtins: HashMap::default(),
            fence_word: None,
            printf_offset: None,
            global_data_offset: None,
        },
        printf_strings: Vec::new(),
        static_local_bytes: 0,
        private_bytes: 0,
        private_live: 0,
        float_mode,
        dead: 0,
        in_library: 0,
        called: HashSet::default(),
        pool: None,
        ppool: None,
        local_pool_users: pool_users(tu, AddrSpace::Local),
        private_pool_users: pool_users(tu, AddrSpace::Private),
        addressed: HashMap::default(),
        wide_types: HashMap::default(),
        wide_vals: HashMap::default(),
        wide_spills: HashMap::default(),
        cl_version,
        global_data: Vec::new(),
        string_literals: HashMap::default(),
        vector_exprs: HashMap::default(),
        global_relocations: Vec::new(),
        init_relocations: Vec::new(),
        global_variable_size: 0,
        last_placement_bytes: 0,
        int64_types: HashMap::default(),
        int64_vals: HashMap::default(),
        constant_offsets: HashMap::default(),
        low_zero_bits: HashMap::default(),
        constructed: HashMap::default(),
        function_statics: HashMap::default(),
        generic_vars: HashSet::default(),
        const_vars: HashSet::default(),
        constant_locals: HashMap::default(),
        register_pad_var: None,
        image_functions: HashMap::default(),
        constant_tables: HashMap::default(),
        call_graph: outline::CallGraph::of(tu),
        outlined: HashMap::default(),
        user_functions: HashMap::default(),
        root_types: HashMap::default(),
        object,
        generic_dynamic: attempt.generic_dynamic,
        generic_limit: false,
        unsplit: std::mem::take(&mut attempt.unsplit),
        split_pools: false,
        split_failed: false,
        split_failures: Vec::new(),
        pool_offset_parts: HashMap::default(),
        pool_offset_steps: HashMap::default(),
        local_float_bits: tu.funcs.iter().any(atomic::calls_float_atomics),
        float_bits_roots: HashSet::default(),
    };
    for c in [
        Capability::Shader,
        Capability::Int64,
        Capability::PhysicalStorageBufferAddresses,
        Capability::VulkanMemoryModel,
    ] {
        l.m.capability(c);
    }
    if caps.spirv_version < (1, 5) {
        for e in [
            "SPV_KHR_physical_storage_buffer",
            "SPV_KHR_vulkan_memory_model",
            "SPV_KHR_8bit_storage",
            "SPV_KHR_16bit_storage",
        ] {
            l.m.extensions.insert(e.into());
        }
    }
    // Definitions first: an `extern` declaration may come before the
    // definition, which a linked program's other unit may hold.
    for g in tu
        .globals
        .iter()
        .filter(|g| !g.is_extern || g.init.is_some())
    {
        l.program_scope_variable(g);
    }
    for g in tu
        .globals
        .iter()
        .filter(|g| g.is_extern && g.init.is_none())
    {
        l.extern_variable(g);
    }
    l.place_string_literals(tu);
    for f in &tu.funcs {
        let mut statics = Vec::new();
        if let Some(body) = &f.body {
            unroll::for_each_decl(body, &mut |v| {
                if v.is_static {
                    statics.push(v);
                }
            });
        }
        for v in statics {
            l.function_static(v);
        }
    }
    let mut kernels = Vec::new();
    for f in &tu.funcs {
        if f.is_kernel && f.body.is_some() {
            if let Some(k) = l.kernel(f) {
                kernels.push(k);
            }
        }
    }
    // Functions no kernel calls still get their errors reported.
    for f in &tu.funcs {
        if !f.is_kernel && f.body.is_some() && !l.called.contains(f.name.as_str()) {
            l.check_uncalled(f);
        }
    }
    attempt.generic_limit = l.generic_limit;
    attempt.unsplit = std::mem::take(&mut l.unsplit);
    attempt.split_failures = std::mem::take(&mut l.split_failures);
    if l.diags.has_errors() {
        return None;
    }
    let version = caps.spirv_version.max((1, 5));
    let printf_strings = std::mem::take(&mut l.printf_strings);
    let global_data = std::mem::take(&mut l.global_data);
    let global_relocations = std::mem::take(&mut l.global_relocations);
    Some(Lowered {
        spirv: l.m.finish(version),
        kernels,
        printf_strings,
        global_data,
        global_relocations,
        global_variable_size: l.global_variable_size,
    })
}

impl<'a> Lowerer<'a> {
    // ---- emission helpers ------------------------------------------------

    fn op(&mut self, op: Op, ty: Word, args: &[Word]) -> Word {
        if let Some(id) = self.fold_integer_constants(op, ty, args) {
            return id;
        }
        if op == Op::CompositeExtract && args.len() == 2 {
            if let Some(parts) = self.constructed.get(&args[0]) {
                if let Some(&part) = parts.get(args[1] as usize) {
                    return part;
                }
            }
        }
        if let Some(id) = self.signed_64_bit_ordering(op, ty, args) {
            return id;
        }
        if !self.wide_types.is_empty() {
            if let Some(id) = self.wide_op(op, ty, args) {
                return id;
            }
        }
        let id = self.emit(op, ty, args);
        self.note_low_zero_bits(id, op, ty, args);
        if self.wide_types.contains_key(&ty) {
            self.wide_vals.insert(id, ty);
        }
        if op == Op::CompositeConstruct && self.m.composite_len(ty) == Some(args.len() as u32) {
            self.constructed.insert(id, args.to_vec());
        }
        id
    }

    /// Integer arithmetic (`~` too) and width conversions of scalar
    /// constants become constants. Address arithmetic is the main source:
    /// `p[3]` scales a constant index converted to 64 bits, and a kernel
    /// full of such accesses (the CTS's vector_creation) otherwise carries
    /// thousands of instructions a driver has to fold itself.
    fn fold_integer_constants(&mut self, op: Op, ty: Word, args: &[Word]) -> Option<Word> {
        let width = self.m.int_width(ty)?;
        let mask = low_bits;
        let value = match (op, args) {
            (Op::SConvert | Op::UConvert, [a]) => {
                let (from, v) = self.m.int_constant(*a)?;
                let v = mask(v, from);
                if op == Op::SConvert {
                    sign_extended(v, from) as u64
                } else {
                    v
                }
            }
            (Op::IAdd | Op::IMul, [a, b])
                if self.m.int_constant(*a).is_none() || self.m.int_constant(*b).is_none() =>
            {
                return self.fold_one_constant_operand(op, ty, width, *a, *b);
            }
            (
                Op::IAdd | Op::ISub | Op::IMul | Op::BitwiseAnd | Op::BitwiseOr | Op::BitwiseXor,
                [a, b],
            ) => {
                let (wa, x) = self.m.int_constant(*a)?;
                let (wb, y) = self.m.int_constant(*b)?;
                if wa != width || wb != width {
                    return None;
                }
                match op {
                    Op::IAdd => x.wrapping_add(y),
                    Op::ISub => x.wrapping_sub(y),
                    Op::IMul => x.wrapping_mul(y),
                    Op::BitwiseAnd => x & y,
                    Op::BitwiseOr => x | y,
                    _ => x ^ y,
                }
            }
            (Op::Not | Op::SNegate, [a]) => {
                let (wa, x) = self.m.int_constant(*a)?;
                if wa != width {
                    return None;
                }
                if op == Op::Not {
                    !x
                } else {
                    x.wrapping_neg()
                }
            }
            // Between the signed and unsigned types of one width
            // (`signed_op`'s operands and result).
            (Op::Bitcast, [a]) => {
                let (wa, x) = self.m.int_constant(*a)?;
                if wa != width {
                    return None;
                }
                x
            }
            // Divisions by a constant other than 0 (and, signed, other
            // than the one quotient that overflows): `SCRYPT_N /
            // SCRYPT_TMTO` in a `const` local's initializer.
            (Op::UDiv | Op::UMod | Op::SDiv, [a, b]) => {
                let (wa, x) = self.m.int_constant(*a)?;
                let (wb, y) = self.m.int_constant(*b)?;
                if wa != width || wb != width {
                    return None;
                }
                let (x, y) = (mask(x, width), mask(y, width));
                match op {
                    Op::UDiv => x.checked_div(y)?,
                    Op::UMod => x.checked_rem(y)?,
                    _ => {
                        let (x, y) = (sign_extended(x, width), sign_extended(y, width));
                        let min = i64::MIN >> (64 - width);
                        if y == 0 || (x == min && y == -1) {
                            return None;
                        }
                        (x / y) as u64
                    }
                }
            }
            // Shifts by a constant below the width (a wider one has no
            // defined result in SPIR-V; OpenCL C's masking of the count
            // comes before it, as its own operation).
            (Op::ShiftLeftLogical | Op::ShiftRightLogical | Op::ShiftRightArithmetic, [a, b]) => {
                let (wa, x) = self.m.int_constant(*a)?;
                let (_, y) = self.m.int_constant(*b)?;
                if wa != width || y >= u64::from(width) {
                    return None;
                }
                let x = mask(x, width);
                match op {
                    Op::ShiftLeftLogical => x << y,
                    Op::ShiftRightLogical => x >> y,
                    _ => (sign_extended(x, width) >> y) as u64,
                }
            }
            _ => return None,
        };
        let id = self.m.constant(ConstKey::Bits(ty, mask(value, width)));
        if self.int64_types.contains_key(&ty) {
            self.int64_vals.insert(id, ty);
        }
        Some(id)
    }

    /// `x + 0` and `x * 1` are `x`; `(x + c1) + c2` is `x + (c1 + c2)`.
    /// Values of integer type `ty` are only ever added to values of the
    /// same type (signed types live inside `signed_op` alone), so `x` can
    /// stand for the sum.
    fn fold_one_constant_operand(
        &mut self,
        op: Op,
        ty: Word,
        width: u32,
        a: Word,
        b: Word,
    ) -> Option<Word> {
        let (x, c) = match (self.m.int_constant(a), self.m.int_constant(b)) {
            (None, Some((w, c))) if w == width => (a, c),
            (Some((w, c)), None) if w == width => (b, c),
            _ => return None,
        };
        let c = low_bits(c, width);
        match op {
            Op::IMul if c == 1 => Some(x),
            Op::IAdd if c == 0 => Some(x),
            Op::IAdd => {
                let (base, sum) = match self.constant_offsets.get(&x) {
                    Some(&(base, c0)) => (base, low_bits(c0.wrapping_add(c), width)),
                    None => (x, c),
                };
                if sum == 0 {
                    return Some(base);
                }
                let k = self.m.constant(ConstKey::Bits(ty, sum));
                if self.int64_types.contains_key(&ty) {
                    self.int64_vals.insert(k, ty);
                }
                let id = self.emit(Op::IAdd, ty, &[base, k]);
                self.note_low_zero_bits(id, Op::IAdd, ty, &[base, k]);
                self.constant_offsets.insert(id, (base, sum));
                Some(id)
            }
            _ => None,
        }
    }

    /// The low bits of 32-bit value `id` known to be zero: all 32 of the
    /// constant 0, a constant's trailing zeros, or what
    /// [`Lowerer::note_low_zero_bits`] recorded.
    fn known_low_zero_bits(&self, id: Word) -> u32 {
        match self.m.int_constant(id) {
            Some((32, v)) => (v as u32).trailing_zeros(),
            Some(_) => 0,
            None => self.low_zero_bits.get(&id).copied().unwrap_or(0),
        }
    }

    /// Records how many low bits of `id`, the 32-bit result of `op` on
    /// `args`, are known to be zero.
    fn note_low_zero_bits(&mut self, id: Word, op: Op, ty: Word, args: &[Word]) {
        // Every emitted instruction passes here: the opcode first, before
        // any lookup.
        let tracked = matches!(
            op,
            Op::IMul
                | Op::ShiftLeftLogical
                | Op::IAdd
                | Op::ISub
                | Op::BitwiseOr
                | Op::BitwiseXor
                | Op::BitwiseAnd
        );
        if !tracked || self.m.int_width(ty) != Some(32) {
            return;
        }
        let zeros = |l: &Self, i: usize| args.get(i).map_or(0, |&a| l.known_low_zero_bits(a));
        let bits = match op {
            Op::IMul => (zeros(self, 0) + zeros(self, 1)).min(32),
            Op::ShiftLeftLogical => match args.get(1).and_then(|&b| self.m.int_constant(b)) {
                Some((_, n)) if n < 32 => (zeros(self, 0) + n as u32).min(32),
                _ => 0,
            },
            Op::IAdd | Op::ISub | Op::BitwiseOr | Op::BitwiseXor => {
                zeros(self, 0).min(zeros(self, 1))
            }
            Op::BitwiseAnd => zeros(self, 0).max(zeros(self, 1)),
            _ => 0,
        };
        if bits > 0 {
            self.low_zero_bits.insert(id, bits);
        }
    }

    /// lavapipe (Mesa 22.3, LLVM 15) gets signed orderings of 64-bit
    /// integers wrong (see `compare` in expr.rs, which flips those of the
    /// program's operators knowing their types). Built-ins compare 64-bit
    /// values too (`any`, `all`, `abs_diff` on long): an `OpSLessThan` and
    /// its kin whose operand is a known 64-bit value becomes the unsigned
    /// comparison of both operands with the sign bit flipped, the same
    /// order. Known 64-bit values are those of the types `sty` made and
    /// 64-bit constants.
    fn signed_64_bit_ordering(&mut self, op: Op, ty: Word, args: &[Word]) -> Option<Word> {
        let unsigned = match op {
            Op::SLessThan => Op::ULessThan,
            Op::SGreaterThan => Op::UGreaterThan,
            Op::SLessThanEqual => Op::ULessThanEqual,
            Op::SGreaterThanEqual => Op::UGreaterThanEqual,
            _ => return None,
        };
        let known = args.iter().take(2).find_map(|a| self.int64_vals.get(a));
        let t = self.int64_types.get(known?)?.clone();
        let vt = self.sty(&t);
        let min = self.constant(&t.with_elem(Scalar::Long), ConstVal::Int(i64::MIN));
        let x = self.op(Op::BitwiseXor, vt, &[args[0], min]);
        let y = self.op(Op::BitwiseXor, vt, &[args[1], min]);
        Some(self.op(unsigned, ty, &[x, y]))
    }

    fn emit(&mut self, op: Op, ty: Word, args: &[Word]) -> Word {
        let id = self.m.id();
        if self.int64_types.contains_key(&ty) {
            self.int64_vals.insert(id, ty);
        }
        // OpenCL float arithmetic is IEEE: Vulkan compilers may otherwise
        // reassociate it (Mesa turns `(1 + x) - 1` into `x`), which breaks
        // code that relies on rounding, the built-in library first of all.
        if (!self.float_mode.relaxed_arithmetic || self.in_library > 0)
            && self.dead == 0
            && matches!(
                op,
                Op::FAdd | Op::FSub | Op::FMul | Op::FDiv | Op::FRem | Op::FMod | Op::FNegate
            )
        {
            self.m.decorate(id, Decoration::NoContraction, &[]);
        }
        let words = Operands::new(&[ty, id], args);
        let Lowerer { m, f, .. } = self;
        f.push(op, words.words(), || m.id());
        id
    }

    fn op_void(&mut self, op: Op, args: &[Word]) {
        let Lowerer { m, f, .. } = self;
        f.push(op, args, || m.id());
    }

    fn term(&mut self, op: Op, args: &[Word]) {
        let Lowerer { m, f, .. } = self;
        f.terminate(op, args, || m.id());
    }

    /// Closes the block with a branch, or with OpUnreachable when no path
    /// reaches the block (its branch would leave constructs it is not in).
    /// Loop back-edges use `term` directly: they must name the header.
    fn branch(&mut self, target: Word) {
        if self.f.is_open() && !self.f.reachable() {
            self.term(Op::Unreachable, &[]);
        } else {
            self.term(Op::Branch, &[target]);
        }
    }

    /// Lowers a statement no path reaches: checked, with its instructions
    /// dropped (its variables are kept, for a later `case` may use them).
    fn lower_dead(&mut self, s: &'a Stmt) {
        self.dead_code(|l| l.stmt(s));
    }

    fn dead_code(&mut self, lower: impl FnOnce(&mut Self)) {
        let scratch = self.m.id();
        let saved = std::mem::replace(&mut self.f, FunctionWriter::new(scratch));
        self.dead += 1;
        lower(self);
        self.dead -= 1;
        let vars = std::mem::take(&mut self.f.vars);
        self.f = saved;
        self.f.vars.extend(vars);
    }

    /// Is the point being written unreachable?
    fn at_dead_point(&self) -> bool {
        !self.f.is_open() || !self.f.reachable()
    }

    /// Starts block `label`, falling into it from the open block if any.
    fn begin(&mut self, label: Word) {
        if self.f.is_open() {
            self.branch(label);
        }
        self.f.begin(label);
    }

    fn label(&mut self) -> Word {
        self.m.id()
    }

    /// Opens a structured loop whose condition is checked first: the
    /// header (with its loop merge) branches to a check block, where
    /// `check` computes the condition, which enters the body or leaves by
    /// the merge. Returns the loop's blocks with the body begun.
    fn enter_checked_loop(&mut self, check: impl FnOnce(&mut Self) -> Word) -> CheckedLoop {
        let l = CheckedLoop {
            header: self.label(),
            body: self.label(),
            cont: self.label(),
            merge: self.label(),
        };
        let check_l = self.label();
        self.begin(l.header);
        self.op_void(Op::LoopMerge, &[l.merge, l.cont, 0]);
        self.branch(check_l);
        self.f.begin(check_l);
        let go = check(self);
        self.term(Op::BranchConditional, &[go, l.body, l.merge]);
        self.f.begin(l.body);
        l
    }

    /// `for (; index < end; index += step) body(index)`: a structured
    /// loop over the unsigned integer in `Function` variable `index` (of
    /// type `ty`), which the caller has initialized. `body` gets the
    /// index's value and leaves its block open.
    fn counted_loop(
        &mut self,
        index: Word,
        ty: Word,
        end: Word,
        step: Word,
        body: impl FnOnce(&mut Self, Word) -> R<()>,
    ) -> R<()> {
        let l = self.enter_checked_loop(|s| {
            let i = s.op(Op::Load, ty, &[index]);
            let bt = s.bool_ty(1);
            s.op(Op::ULessThan, bt, &[i, end])
        });
        let i = self.op(Op::Load, ty, &[index]);
        let done = body(self, i);
        self.branch(l.cont);
        self.f.begin(l.cont);
        let i = self.op(Op::Load, ty, &[index]);
        let next = self.op(Op::IAdd, ty, &[i, step]);
        self.op_void(Op::Store, &[index, next]);
        self.term(Op::Branch, &[l.header]);
        self.f.begin(l.merge);
        done
    }

    fn glsl(&mut self, ty: Word, inst: u32, args: &[Word]) -> Word {
        if self.caps.f64_rounding_from_floor && matches!(inst, glsl::TRUNC | glsl::ROUND_EVEN) {
            if let [x] = args {
                if let Some(n) = self.m.f64_components(ty) {
                    return self.f64_rounding_from_floor(n, inst, *x);
                }
                // 8- and 16-component vectors, one double at a time.
                if let Some(&(elem, n)) = self.wide_types.get(&ty) {
                    if self.m.f64_components(elem) == Some(1) {
                        let parts: Vec<Word> = (0..n)
                            .map(|i| {
                                let c = self.emit(Op::CompositeExtract, elem, &[*x, i]);
                                self.f64_rounding_from_floor(1, inst, c)
                            })
                            .collect();
                        return self.op(Op::CompositeConstruct, ty, &parts);
                    }
                }
            }
        }
        let set = self.m.glsl();
        let mut v = vec![set, inst];
        v.extend_from_slice(args);
        self.op(Op::ExtInst, ty, &v)
    }

    /// `trunc` or `rint` of doubles from `floor` and `ceil`, for drivers
    /// whose own are wrong (`TargetCaps::f64_rounding_from_floor`). Exact:
    /// `x - floor(x)` is exact for every double, and the sign of `x` is
    /// put back, so -0 and values in (-1, 0) keep theirs; NaN and the
    /// infinities come through `floor` and `ceil` unchanged.
    fn f64_rounding_from_floor(&mut self, n: u32, inst: u32, x: Word) -> Word {
        let t = if n == 1 {
            Type::Scalar(Scalar::Double)
        } else {
            Type::Vector(Scalar::Double, n as u8)
        };
        let ty = self.sty(&t);
        let bt = self.bool_ty(n);
        let floor = self.glsl(ty, glsl::FLOOR, &[x]);
        let rounded = if inst == glsl::TRUNC {
            let ceil = self.glsl(ty, glsl::CEIL, &[x]);
            let zero = self.constant(&t, ConstVal::Float(0.0));
            let negative = self.op(Op::FOrdLessThan, bt, &[x, zero]);
            self.op(Op::Select, ty, &[negative, ceil, floor])
        } else {
            // Round half to even: up when the fraction is over one half,
            // or exactly one half above an odd floor.
            let half = self.constant(&t, ConstVal::Float(0.5));
            let one = self.constant(&t, ConstVal::Float(1.0));
            let two = self.constant(&t, ConstVal::Float(2.0));
            let fraction = self.op(Op::FSub, ty, &[x, floor]);
            let halved = self.op(Op::FMul, ty, &[floor, half]);
            let halved = self.glsl(ty, glsl::FLOOR, &[halved]);
            let even = self.op(Op::FMul, ty, &[halved, two]);
            let odd_part = self.op(Op::FSub, ty, &[floor, even]);
            let zero = self.constant(&t, ConstVal::Float(0.0));
            let odd = self.op(Op::FOrdNotEqual, bt, &[odd_part, zero]);
            let over = self.op(Op::FOrdGreaterThan, bt, &[fraction, half]);
            let tie = self.op(Op::FOrdEqual, bt, &[fraction, half]);
            let tie_up = self.op(Op::LogicalAnd, bt, &[tie, odd]);
            let up = self.op(Op::LogicalOr, bt, &[over, tie_up]);
            let above = self.op(Op::FAdd, ty, &[floor, one]);
            self.op(Op::Select, ty, &[up, above, floor])
        };
        self.copysign_ids(rounded, x, &t)
    }

    fn error(&mut self, span: Span, msg: impl Into<String>) {
        self.diags.error(span, msg);
    }

    // ---- what the device offers -------------------------------------------

    fn has_extension(&self, ext: &str) -> bool {
        self.caps.extensions.iter().any(|e| e == ext)
    }

    fn has_feature(&self, feature: &str) -> bool {
        self.caps.features.iter().any(|f| f == feature)
    }

    /// Diagnoses a call on a device without the extension that defines it.
    fn require_extension(&mut self, ext: &str, name: &str, span: Span) -> R<()> {
        // The core sub-group functions come with the OpenCL C 3.0 feature
        // too (a device without independent forward progress offers the
        // feature but not the cl_khr_subgroups extension).
        let core = ext == "cl_khr_subgroups" && self.has_feature("__opencl_c_subgroups");
        if core || self.has_extension(ext) {
            Some(())
        } else {
            self.error(
                span,
                format!("'{name}' needs {ext}, which this device does not support"),
            );
            None
        }
    }

    /// Diagnoses a call on a device without the feature of `ext` that it
    /// needs.
    fn require_feature(&mut self, ext: &str, feature: &str, name: &str, span: Span) -> R<()> {
        if self.has_feature(feature) {
            Some(())
        } else {
            self.error(
                span,
                format!("'{name}' needs {ext} ({feature}), which this device does not support"),
            );
            None
        }
    }

    // ---- types and constants ----------------------------------------------

    fn scalar_key(&mut self, s: Scalar) -> TypeKey {
        match s {
            Scalar::Bool => TypeKey::Bool,
            s if s.is_float() => TypeKey::Float(s.bits()),
            s => TypeKey::Int(s.bits()),
        }
    }

    /// The SPIR-V type that holds a value of `t` in registers and in
    /// `Function`/`Workgroup`/`Private` memory.
    fn sty(&mut self, t: &Type) -> Word {
        match t {
            Type::Void => self.m.ty(TypeKey::Void),
            Type::Scalar(s) => {
                let k = self.scalar_key(*s);
                let id = self.m.ty(k);
                if matches!(s, Scalar::Long | Scalar::ULong) {
                    self.int64_types.entry(id).or_insert_with(|| t.clone());
                }
                id
            }
            Type::Vector(s, n) => {
                let k = self.scalar_key(*s);
                let e = self.m.ty(k);
                let id = self.vector_ty(e, *n as u32);
                if matches!(s, Scalar::Long | Scalar::ULong) {
                    self.int64_types.entry(id).or_insert_with(|| t.clone());
                }
                id
            }
            Type::Pointer(_, sp, _) if self.addressed(*sp) => self.m.ty(TypeKey::Int(64)),
            Type::Pointer(..) => self.m.ty(TypeKey::Int(32)),
            Type::Array(e, n) => {
                let e = self.sty(e);
                let len = self.m.u32_const((*n).max(1));
                self.m.ty(TypeKey::Array(e, len))
            }
            Type::Struct(_) if self.union_repr(t).is_some() => {
                let repr = self.union_repr(t).unwrap_or(Type::UINT);
                self.sty(&repr)
            }
            Type::Struct(id) => {
                let members: Vec<Type> = self
                    .types
                    .structs
                    .get(*id)
                    .map(|d| d.members.iter().map(|m| m.ty.clone()).collect())
                    .unwrap_or_default();
                let ids: Vec<Word> = members.iter().map(|m| self.sty(m)).collect();
                self.m.ty(TypeKey::Struct(ids))
            }
            Type::Opaque(_) => self.m.ty(TypeKey::Int(64)),
        }
    }

    fn ptr_ty(&mut self, sc: StorageClass, t: &Type) -> Word {
        let t = self.sty(t);
        self.m.ty(TypeKey::Pointer(sc, t))
    }

    fn bool_ty(&mut self, n: u32) -> Word {
        let b = self.m.ty(TypeKey::Bool);
        if n == 1 {
            b
        } else {
            self.vector_ty(b, n)
        }
    }

    /// A vector type of `n` components: a SPIR-V vector up to 4, an array
    /// beyond (see `wide_types`).
    fn vector_ty(&mut self, elem: Word, n: u32) -> Word {
        if n <= 4 {
            return self.m.ty(TypeKey::Vector(elem, n));
        }
        let len = self.m.u32_const(n);
        let t = self.m.ty(TypeKey::Array(elem, len));
        self.wide_types.insert(t, (elem, n));
        t
    }

    /// Splits an instruction on 8- or 16-component vectors into one per
    /// component; `None` when `op` needs no splitting.
    fn wide_op(&mut self, op: Op, ty: Word, args: &[Word]) -> Option<Word> {
        let res = self.wide_types.get(&ty).copied();
        let ids_from = if op == Op::ExtInst { 2 } else { 0 };
        let wide_arg = args
            .iter()
            .skip(ids_from)
            .find_map(|a| self.wide_vals.get(a).copied());
        match op {
            Op::VectorShuffle => {
                let a = self.wide_vals.get(&args[0]).copied();
                let b = self.wide_vals.get(&args[1]).copied();
                if res.is_none() && a.is_none() && b.is_none() {
                    return None;
                }
                let na = self.component_count(args[0]);
                let mut comps = Vec::new();
                let elem = self.component_type(args[0]);
                for &sel in &args[2..] {
                    let (src, i) = if sel == 0xffff_ffff {
                        (args[0], 0)
                    } else if sel < na {
                        (args[0], sel)
                    } else {
                        (args[1], sel - na)
                    };
                    comps.push(self.emit(Op::CompositeExtract, elem, &[src, i]));
                }
                Some(self.op(Op::CompositeConstruct, ty, &comps))
            }
            Op::VectorExtractDynamic => {
                let vt = self.wide_vals.get(&args[0]).copied()?;
                let block = self.f.current_label.unwrap_or(0);
                let var = match self.wide_spills.get(&args[0]) {
                    Some(&(var, b)) if b == block => var,
                    _ => {
                        let p = self.m.ty(TypeKey::Pointer(StorageClass::Function, vt));
                        let var = self.m.id();
                        self.f.var(p, var);
                        self.op_void(Op::Store, &[var, args[0]]);
                        self.wide_spills.insert(args[0], (var, block));
                        var
                    }
                };
                let pe = self.m.ty(TypeKey::Pointer(StorageClass::Function, ty));
                let ptr = self.emit(Op::AccessChain, pe, &[var, args[1]]);
                Some(self.emit(Op::Load, ty, &[ptr]))
            }
            Op::Any | Op::All => {
                wide_arg?;
                let n = self.component_count(args[0]);
                let b = self.m.ty(TypeKey::Bool);
                let mut acc = self.emit(Op::CompositeExtract, b, &[args[0], 0]);
                let join = if op == Op::Any {
                    Op::LogicalOr
                } else {
                    Op::LogicalAnd
                };
                for i in 1..n {
                    let c = self.emit(Op::CompositeExtract, b, &[args[0], i]);
                    acc = self.emit(join, b, &[acc, c]);
                }
                Some(acc)
            }
            _ if is_componentwise(op) => {
                let (elem, n) = match res {
                    Some(r) => r,
                    None => {
                        wide_arg?;
                        return None;
                    }
                };
                let mut comps = Vec::with_capacity(n as usize);
                for i in 0..n {
                    let mut cargs = Vec::with_capacity(args.len());
                    for (k, &a) in args.iter().enumerate() {
                        if k >= ids_from && self.wide_vals.contains_key(&a) {
                            let et = self.component_type(a);
                            cargs.push(self.emit(Op::CompositeExtract, et, &[a, i]));
                        } else {
                            cargs.push(a);
                        }
                    }
                    comps.push(self.emit(op, elem, &cargs));
                }
                Some(self.op(Op::CompositeConstruct, ty, &comps))
            }
            _ => None,
        }
    }

    fn component_count(&self, v: Word) -> u32 {
        self.wide_vals
            .get(&v)
            .and_then(|t| self.wide_types.get(t))
            .map_or(4, |w| w.1)
    }

    fn component_type(&self, v: Word) -> Word {
        self.wide_vals
            .get(&v)
            .and_then(|t| self.wide_types.get(t))
            .map_or(0, |w| w.0)
    }

    /// A constant of scalar or vector type `t` (vectors splat).
    fn constant(&mut self, t: &Type, v: ConstVal) -> Word {
        let Some(s) = t.elem_scalar() else {
            let ty = self.sty(t);
            return self.m.constant(ConstKey::Null(ty));
        };
        let scalar = match s {
            Scalar::Bool => {
                if v.as_i64() != 0 {
                    self.m.constant(ConstKey::True)
                } else {
                    self.m.constant(ConstKey::False)
                }
            }
            _ => {
                let bits = match s {
                    Scalar::Float => (v.as_f64() as f32).to_bits() as u64,
                    Scalar::Double => v.as_f64().to_bits(),
                    Scalar::Half => f32_to_f16(v.as_f64() as f32) as u64,
                    _ => {
                        let i = consteval::wrap_to(v.as_i64(), s) as u64;
                        if s.bits() < 64 {
                            i & ((1u64 << s.bits()) - 1)
                        } else {
                            i
                        }
                    }
                };
                let ty = self.sty(&Type::Scalar(s));
                let id = self.m.constant(ConstKey::Bits(ty, bits));
                if self.int64_types.contains_key(&ty) {
                    self.int64_vals.insert(id, ty);
                }
                id
            }
        };
        match t {
            Type::Vector(_, n) => {
                let ty = self.sty(t);
                let id = self
                    .m
                    .constant(ConstKey::Composite(ty, vec![scalar; *n as usize]));
                if self.wide_types.contains_key(&ty) {
                    self.wide_vals.insert(id, ty);
                }
                if self.int64_types.contains_key(&ty) {
                    self.int64_vals.insert(id, ty);
                }
                id
            }
            _ => scalar,
        }
    }

    fn const_val(&mut self, t: &Type, v: i64) -> Val {
        let id = self.constant(t, ConstVal::Int(v));
        Val::new(id, t.clone())
    }

    fn u32c(&mut self, v: u32) -> Word {
        self.m.u32_const(v)
    }

    // ---- variables -----------------------------------------------------------

    fn new_function_var(&mut self, t: &Type) -> Word {
        // A variable lives until its block or inlined call ends: the
        // kernel's figure is the most bytes live at once.
        self.private_live += u64::from(self.types.size(t));
        self.private_bytes = self.private_bytes.max(self.private_live);
        let p = self.ptr_ty(StorageClass::Function, t);
        let id = self.m.id();
        self.f.var(p, id);
        self.root_types.insert(id, p);
        id
    }

    /// A named `__private` variable of the function being lowered.
    fn named_private(&mut self, name: &str, ty: &Type) -> Sym {
        let func = self.call_stack.last().copied();
        self.private_of(func, name, ty)
    }

    /// A named `__private` variable (a parameter or local) of `func`: a
    /// `Function` variable, or a slot of the private word pool when the
    /// program reinterprets private memory and the variable may be
    /// addressed or holds a union. Unnamed objects (compound literals,
    /// spilled unions) and variables of no known function always take a
    /// slot.
    fn private_of(&mut self, func: Option<&'a str>, name: &str, ty: &Type) -> Sym {
        let (size, align) = self.types.size_align(ty);
        let slot = match &self.ppool {
            None => false,
            Some(pool) if !pool.pointers => self.contains_union(ty),
            Some(_) => {
                name.is_empty() || self.contains_union(ty) || self.may_be_addressed(func, name)
            }
        };
        if slot && self.ppool.is_some() {
            let at = match self.split_slot(name, size, align) {
                Some(at) => at,
                None => self
                    .ppool
                    .as_mut()
                    .map_or(0, |pool| pool.place(size, align)),
            };
            let offset = self.m.u32_const(at);
            // A slot given back may hold a new variable: what was noted of
            // the old one goes.
            self.const_vars.remove(&(0, Some(offset)));
            self.constant_locals.remove(&(0, Some(offset)));
            self.generic_vars.remove(&(0, Some(offset)));
            return Sym {
                root: 0,
                sc: StorageClass::Function,
                ty: ty.clone(),
                base: None,
                pool: Some(offset),
            };
        }
        let var = self.new_function_var(ty);
        self.m.name(var, name);
        Sym {
            root: var,
            sc: StorageClass::Function,
            ty: ty.clone(),
            base: None,
            pool: None,
        }
    }

    /// Where the next private pool variable goes, to give back what
    /// follows with [`Self::release_private`] when the variables made
    /// meanwhile end their lives.
    fn private_top(&self) -> PrivateMark {
        PrivateMark {
            pool: self.ppool.as_ref().map(|p| p.top),
            live: self.private_live,
        }
    }

    fn release_private(&mut self, mark: PrivateMark) {
        if let (Some(pool), Some(top)) = (self.ppool.as_mut(), mark.pool) {
            pool.top = top;
        }
        self.private_live = mark.live;
    }

    fn may_be_addressed(&mut self, func: Option<&'a str>, name: &str) -> bool {
        let Some(f) = func.and_then(|f| self.funcs.get(f).copied()) else {
            return true;
        };
        let types = self.types;
        self.addressed
            .entry(f.name.as_str())
            .or_insert_with(|| addressed::addressed_variables(f, types))
            .contains(name)
    }

    fn sym_place(sym: &Sym) -> Place {
        match sym.pool {
            Some(offset) => Place::Pool {
                offset,
                ty: sym.ty.clone(),
                sc: sym.sc,
            },
            None => Place::Var {
                root: sym.root,
                sc: sym.sc,
                path: Vec::new(),
                dynamic: Vec::new(),
                in_array: false,
                ty: sym.ty.clone(),
            },
        }
    }

    fn lookup(&self, name: &str) -> Option<Sym> {
        self.symbol(name).cloned()
    }

    /// The symbol `name` names where it is used.
    fn symbol(&self, name: &str) -> Option<&Sym> {
        self.scopes
            .iter()
            .rev()
            .find_map(|s| s.get(name))
            .or_else(|| self.globals.get(name))
    }

    fn bind(&mut self, name: &'a str, sym: Sym) {
        if let Some(s) = self.scopes.last_mut() {
            s.insert(name, sym);
        }
    }

    fn set_pointer_base(&mut self, name: &str, base: Option<Rc<LBase>>, span: Span) {
        let Some(base) = base else { return };
        let Some(old) = self.lookup(name).map(|sym| sym.base) else {
            return;
        };
        match old {
            None => {
                for s in self.scopes.iter_mut().rev() {
                    if let Some(v) = s.get_mut(name) {
                        v.base = Some(base);
                        return;
                    }
                }
            }
            Some(old) if *old == *base => {}
            // The same array, other rows: the pointer's saved indices take
            // the new ones.
            Some(old) if same_object(&old, &base) => {
                let u = self.sty(&Type::UINT);
                for i in 0..old.path.len() {
                    if old.saved[i] {
                        let v = if base.saved[i] {
                            self.op(Op::Load, u, &[base.path[i]])
                        } else {
                            base.path[i]
                        };
                        self.op_void(Op::Store, &[old.path[i], v]);
                    }
                }
            }
            Some(_) => self.generic_limitation(
                span,
                "this pointer is made to point into a different __local/__private \
                 object than before; that is not supported yet",
            ),
        }
    }

    fn workgroup_size(&mut self) -> Word {
        if let Some(id) = self.wg_size {
            return id;
        }
        let u = self.m.ty(TypeKey::Int(32));
        let mut comps = Vec::new();
        for sid in SPEC_ID_WORK_GROUP_SIZE {
            let c = self.m.global(Op::SpecConstant, u, &[1]);
            self.m.decorate(c, Decoration::SpecId, &[sid]);
            comps.push(c);
        }
        let v3 = self.m.ty(TypeKey::Vector(u, 3));
        let id = self.m.global(Op::SpecConstantComposite, v3, &comps);
        self.m
            .decorate(id, Decoration::BuiltIn, &[BuiltIn::WorkgroupSize as u32]);
        self.wg_size = Some(id);
        id
    }

    fn builtin_input(&mut self, b: BuiltIn) -> Word {
        let var = match self.k.builtins.get(&(b as u32)) {
            Some(v) => *v,
            None => {
                let u = self.m.ty(TypeKey::Int(32));
                let v3 = self.m.ty(TypeKey::Vector(u, 3));
                let p = self.m.ty(TypeKey::Pointer(StorageClass::Input, v3));
                let var = self
                    .m
                    .global(Op::Variable, p, &[StorageClass::Input as u32]);
                self.m.decorate(var, Decoration::BuiltIn, &[b as u32]);
                self.k.builtins.insert(b as u32, var);
                self.k.interface.insert(var);
                var
            }
        };
        let u = self.m.ty(TypeKey::Int(32));
        let v3 = self.m.ty(TypeKey::Vector(u, 3));
        self.op(Op::Load, v3, &[var])
    }

    // ---- program scope ---------------------------------------------------------

    fn program_scope_variable(&mut self, g: &VarDecl) {
        if matches!(g.ty, Type::Opaque(_)) {
            self.program_scope_opaque(g);
            return;
        }
        if self.types.size(&g.ty) > MAX_VARIABLE_BYTES {
            self.error(
                g.span,
                format!(
                    "variable '{}' is larger than the {MAX_VARIABLE_BYTES} bytes supported",
                    g.name
                ),
            );
            return;
        }
        if self.globals.contains_key(&g.name) {
            self.error(g.span, format!("redefinition of '{}'", g.name));
            return;
        }
        if g.space == AddrSpace::Constant && g.init.is_none() && !g.is_extern {
            self.error(
                g.span,
                format!(
                    "variable '{}' in the __constant address space must be initialized",
                    g.name
                ),
            );
            return;
        }
        let sym = if g.space == AddrSpace::Constant {
            self.constant_variable(g)
        } else {
            self.global_variable(g)
        };
        if let Some(sym) = sym {
            self.globals.insert(g.name.clone(), sym);
        }
    }

    /// A `__constant` variable of program scope, or `static` in a function:
    /// a read-only slot of the program's data buffer (DESIGN.md), so that
    /// `&x`, `x` decaying to a pointer and string literals are `__constant`
    /// pointers like those passed as arguments.
    fn constant_variable(&mut self, g: &VarDecl) -> Option<Sym> {
        self.constant_data_variable(g)
    }

    /// A `static` variable declared in a function (OpenCL C 2.0 and 3.0:
    /// in the `__global` or `__constant` address space): one object for
    /// every call, made once before any kernel is lowered, like a
    /// program-scope variable.
    fn function_static(&mut self, v: &VarDecl) {
        if self.cl_version < 200 {
            self.error(
                v.span,
                "static variables in functions need -cl-std=CL2.0 or CL3.0",
            );
            return;
        }
        if self.types.size(&v.ty) > MAX_VARIABLE_BYTES {
            self.error(
                v.span,
                format!(
                    "variable '{}' is larger than the {MAX_VARIABLE_BYTES} bytes supported",
                    v.name
                ),
            );
            return;
        }
        let sym = match v.space {
            AddrSpace::Constant => self.constant_variable(v),
            AddrSpace::Global | AddrSpace::Private => self.global_variable(v),
            AddrSpace::Local => {
                self.error(
                    v.span,
                    "static variables in functions must be in the __global or __constant \
                     address space",
                );
                None
            }
        };
        if let Some(sym) = sym {
            self.function_statics.insert(v.span, sym);
        }
    }

    /// A program-scope `__global` variable (OpenCL C 2.0 and 3.0 with
    /// `__opencl_c_program_scope_global_variables`; a program-scope
    /// variable without an address space is `__global` there): a slot of
    /// the program's global variable buffer holding its initial value.
    fn global_variable(&mut self, g: &VarDecl) -> Option<Sym> {
        let space = match g.space {
            AddrSpace::Private if self.cl_version >= 200 => AddrSpace::Global,
            s => s,
        };
        let feature = "__opencl_c_program_scope_global_variables";
        if space != AddrSpace::Global {
            let msg = if self.cl_version >= 200 {
                "program-scope variables must be in the __global or __constant address space"
            } else {
                "program-scope variables must be in the __constant address space \
                 (program-scope __global variables need -cl-std=CL2.0 or CL3.0)"
            };
            self.error(g.span, msg);
            return None;
        }
        if self.cl_version < 200 {
            self.error(
                g.span,
                "program-scope __global variables need -cl-std=CL2.0 or CL3.0",
            );
            return None;
        }
        if self.cl_version >= 300 && !self.has_feature(feature) {
            self.error(
                g.span,
                format!("program-scope __global variables need the device feature {feature}"),
            );
            return None;
        }
        if g.ty == Type::Void || matches!(g.ty, Type::Opaque(_)) {
            self.error(
                g.span,
                format!(
                    "variable '{}' cannot be a program-scope __global variable",
                    g.name
                ),
            );
            return None;
        }
        if let Type::Struct(id) = g.ty {
            if !self.types.structs.get(id).is_some_and(|s| s.complete) {
                self.error(g.span, format!("variable '{}' has incomplete type", g.name));
                return None;
            }
        }
        if g.ty.elem_scalar() == Some(Scalar::Double) && !self.caps.fp64 {
            self.error(g.span, "type 'double' requires cl_khr_fp64 support");
            return None;
        }
        let at = self.place_global_data(g, "program-scope __global variables")?;
        self.global_variable_size += self.last_placement_bytes;
        Some(Sym {
            root: at,
            sc: StorageClass::PhysicalStorageBuffer,
            ty: g.ty.clone(),
            base: None,
            pool: None,
        })
    }

    /// An `extern` program-scope declaration: some unit of the program
    /// must define it.
    fn extern_variable(&mut self, g: &VarDecl) {
        let defined = self.globals.get(&g.name).map(|s| s.ty.clone());
        match defined {
            Some(t) if t == g.ty => {}
            Some(_) => self.error(
                g.span,
                format!(
                    "'{}' is declared with a type other than its definition's",
                    g.name
                ),
            ),
            // In a compiled object, a stand-in takes the definition's
            // place so that uses type-check; an incomplete type cannot
            // have one and needs none unless used.
            None if self.object => {
                let complete = match g.ty {
                    Type::Struct(id) => self.types.structs.get(id).is_some_and(|s| s.complete),
                    _ => true,
                };
                if complete {
                    let sym = if g.space == AddrSpace::Constant {
                        self.constant_variable(g)
                    } else {
                        self.global_variable(g)
                    };
                    if let Some(sym) = sym {
                        self.globals.insert(g.name.clone(), sym);
                    }
                }
            }
            None => self.error(
                g.span,
                format!(
                    "external variable '{}' is declared but not defined in the program",
                    g.name
                ),
            ),
        }
    }

    /// The place of a program-scope `__global` variable: its buffer's
    /// address (a hidden kernel argument) plus its offset.
    pub(super) fn global_data_place(&mut self, offset: u32, ty: Type) -> Place {
        let at = self.k.global_data_offset.unwrap_or(0);
        let base = self.read_arg(&Type::ULONG, at);
        let u64t = self.m.ty(TypeKey::Int(64));
        let off = self.m.u64_const(offset as u64);
        let addr = self.op(Op::IAdd, u64t, &[base, off]);
        let align = self.types.align(&ty);
        Place::Addr {
            addr,
            ty,
            align,
            space: AddrSpace::Global,
        }
    }

    /// Writes a constant initializer's bytes (C layout, little-endian, as
    /// the device holds them) into `out`, which is `t`'s size and zeroed
    /// and begins `pos` bytes into the variable being initialised.
    /// Pointers to program-scope data hold its offset in the data buffer
    /// and are listed in `relocations` (relative to the variable).
    fn init_bytes(
        &mut self,
        t: &Type,
        init: &Init,
        out: &mut [u8],
        pos: usize,
        span: Span,
    ) -> bool {
        match (t, init) {
            (
                Type::Array(elem, n),
                Init::Expr(Expr {
                    kind: ExprKind::StrLit(bytes),
                    ..
                }),
            ) if matches!(**elem, Type::Scalar(Scalar::Char | Scalar::UChar)) => {
                if bytes.len() > *n as usize {
                    self.error(span, "initializer-string for char array is too long");
                    return false;
                }
                out[..bytes.len()].copy_from_slice(bytes);
                true
            }
            (Type::Array(elem, n), Init::List(items, s)) => {
                if items.len() > *n as usize {
                    self.error(*s, "excess elements in array initializer");
                    return false;
                }
                let esize = self.types.size(elem) as usize;
                items.iter().enumerate().all(|(i, it)| {
                    let at = i * esize;
                    self.init_bytes(elem, it, &mut out[at..at + esize], pos + at, span)
                })
            }
            (Type::Struct(id), Init::List(items, s)) => {
                let Some(def) = self.types.structs.get(*id) else {
                    return false;
                };
                // A union's initializer list sets its first member.
                let take = if def.is_union { 1 } else { def.members.len() };
                let members: Vec<(Type, usize)> = def
                    .members
                    .iter()
                    .take(take)
                    .map(|m| (m.ty.clone(), m.offset as usize))
                    .collect();
                if items.len() > members.len() {
                    self.error(*s, "excess elements in struct initializer");
                    return false;
                }
                items.iter().zip(members).all(|(it, (mt, mo))| {
                    let size = self.types.size(&mt) as usize;
                    self.init_bytes(&mt, it, &mut out[mo..mo + size], pos + mo, span)
                })
            }
            (Type::Vector(s, n), Init::List(items, sp)) => {
                if items.len() > *n as usize {
                    self.error(*sp, "excess elements in vector initializer");
                    return false;
                }
                let es = s.size() as usize;
                let elem = Type::Scalar(*s);
                items.iter().enumerate().all(|(i, it)| {
                    let at = i * es;
                    self.init_bytes(&elem, it, &mut out[at..at + es], pos + at, span)
                })
            }
            (Type::Vector(s, n), Init::Expr(e)) => {
                let Some(vals) = self.const_vector_values(e, *n as usize) else {
                    return false;
                };
                let es = s.size() as usize;
                for (i, v) in vals.into_iter().enumerate() {
                    scalar_bytes(*s, v, &mut out[i * es..(i + 1) * es]);
                }
                true
            }
            (_, Init::List(items, s)) => match items.as_slice() {
                [] => true,
                [one] => self.init_bytes(t, one, out, pos, span),
                _ => {
                    self.error(*s, "invalid initializer");
                    false
                }
            },
            (Type::Scalar(s), Init::Expr(e)) => match consteval::eval(e, self.types) {
                Some(v) => {
                    scalar_bytes(*s, v, out);
                    true
                }
                None => {
                    self.error(e.span, "initializer is not a constant expression");
                    false
                }
            },
            (Type::Pointer(..), Init::Expr(e)) => match consteval::eval(e, self.types) {
                Some(v) if v.as_i64() == 0 => true,
                _ => self.address_constant_bytes(t, e, out, pos),
            },
            _ => {
                self.error(span, "unsupported initializer for a program-scope variable");
                false
            }
        }
    }

    /// The component values of a constant vector expression.
    fn const_vector_values(&mut self, e: &Expr, n: usize) -> R<Vec<ConstVal>> {
        match &e.kind {
            ExprKind::VecLit(_, items) => {
                let mut out = Vec::new();
                for it in items {
                    if let ExprKind::VecLit(Type::Vector(_, m), _)
                    | ExprKind::Cast(Type::Vector(_, m), _) = &it.kind
                    {
                        out.extend(self.const_vector_values(it, *m as usize)?);
                    } else {
                        let Some(v) = consteval::eval(it, self.types) else {
                            self.error(it.span, "initializer is not a constant expression");
                            return None;
                        };
                        out.push(v);
                    }
                }
                if out.len() == 1 {
                    out = vec![out[0]; n];
                }
                if out.len() != n {
                    self.error(e.span, "wrong number of components in vector literal");
                    return None;
                }
                Some(out)
            }
            ExprKind::Cast(Type::Vector(_, m), inner) if *m as usize == n => {
                self.const_vector_values(inner, n)
            }
            _ => match consteval::eval(e, self.types) {
                Some(v) => Some(vec![v; n]),
                None => {
                    self.error(e.span, "initializer is not a constant expression");
                    None
                }
            },
        }
    }

    // ---- kernels ---------------------------------------------------------------

    fn kernel(&mut self, f: &'a FuncDef) -> Option<KernelInfo> {
        let body = f.body.as_ref()?;
        if f.ret != Type::Void {
            self.error(f.span, "a kernel function must return void");
        }
        // The argument layout of the crate docs.
        let mut args = Vec::new();
        let mut offset = 0u32;
        for p in &f.params {
            let (kind, aq, size, align) = match &p.ty {
                Type::Pointer(inner, ..) if inner.is_pointer() => {
                    self.error(p.span, "kernel arguments cannot be pointers to pointers");
                    continue;
                }
                Type::Pointer(_, AddrSpace::Global, _) => {
                    (ArgKind::Buffer, AddressQualifier::Global, 8, 8)
                }
                Type::Pointer(_, AddrSpace::Constant, _) => {
                    (ArgKind::Buffer, AddressQualifier::Constant, 8, 8)
                }
                Type::Pointer(_, AddrSpace::Local, _) => {
                    (ArgKind::LocalPointer, AddressQualifier::Local, 0, 1)
                }
                Type::Pointer(_, AddrSpace::Private, _) => {
                    self.error(
                        p.span,
                        "kernel pointer arguments must point to __global, __constant or __local memory",
                    );
                    continue;
                }
                Type::Opaque(name) => match self.opaque_arg(name, p) {
                    Some(layout) => layout,
                    None => continue,
                },
                Type::Scalar(Scalar::Bool) => {
                    self.error(p.span, "kernel arguments cannot be of type bool");
                    continue;
                }
                // OpenCL C 6.9.k: their size differs between host and device.
                Type::Scalar(_)
                    if matches!(
                        p.type_name.as_str(),
                        "size_t" | "ptrdiff_t" | "intptr_t" | "uintptr_t"
                    ) =>
                {
                    self.error(
                        p.span,
                        format!(
                            "'{}' cannot be used as the type of a kernel argument",
                            p.type_name
                        ),
                    );
                    continue;
                }
                Type::Scalar(Scalar::Half) | Type::Vector(Scalar::Half, _) if !self.caps.fp16 => {
                    self.error(p.span, "kernel arguments of type half need cl_khr_fp16");
                    continue;
                }
                Type::Struct(id) if !self.types.structs.get(*id).is_some_and(|s| s.complete) => {
                    self.error(p.span, "kernel argument has incomplete type");
                    continue;
                }
                t if self.types.size(t) > MAX_ARG_BYTES => {
                    self.error(
                        p.span,
                        format!(
                            "kernel argument '{}' is larger than {MAX_ARG_BYTES} bytes",
                            p.name
                        ),
                    );
                    continue;
                }
                t => {
                    let (s, a) = self.types.size_align(t);
                    (ArgKind::Value, AddressQualifier::Private, s, a)
                }
            };
            let access = match p.access {
                // Images without a qualifier are read_only (OpenCL C 6.15.14).
                Access::None if matches!(&p.ty, Type::Opaque(n) if n.starts_with("image")) => {
                    AccessQualifier::ReadOnly
                }
                Access::None => AccessQualifier::None,
                Access::ReadOnly => AccessQualifier::ReadOnly,
                Access::WriteOnly => AccessQualifier::WriteOnly,
                Access::ReadWrite => AccessQualifier::ReadWrite,
            };
            offset = crate::sema::types::round_up(offset, align);
            let spec = if kind == ArgKind::LocalPointer {
                let id = self.next_spec_id;
                self.next_spec_id += 1;
                Some(id)
            } else {
                None
            };
            args.push(KernelArg {
                name: p.name.clone(),
                type_name: p.type_name.clone(),
                address_qualifier: aq,
                access_qualifier: access,
                // A value parameter's own `const` is not reported.
                type_qualifier: if p.ty.is_pointer() { p.qual as u32 } else { 0 },
                kind,
                offset: if kind == ArgKind::LocalPointer {
                    0
                } else {
                    offset
                },
                size,
                local_size_spec_id: spec,
            });
            offset += size;
        }
        if self.diags.has_errors() {
            return None;
        }
        // The global variable buffer's address, then printf's buffer
        // address: hidden trailing 8-byte arguments.
        let global_data_offset = if self.global_data.is_empty() {
            None
        } else {
            let at = crate::sema::types::round_up(offset, 8);
            offset = at + 8;
            Some(at)
        };
        let printf_offset = if calls_printf(f, &self.funcs, &mut Vec::new()) {
            let at = crate::sema::types::round_up(offset, 8);
            offset = at + 8;
            Some(at)
        } else {
            None
        };
        let args_size = crate::sema::types::round_up(offset, 4);
        let max_push = self.caps.max_push_constants_size;
        let block = if ARGS_OFFSET + args_size <= max_push {
            ArgBlock::Push
        } else if self.caps.header_buffer && HEADER_BUFFER_ARGS_OFFSET + args_size <= max_push {
            ArgBlock::HeaderBuffer
        } else {
            ArgBlock::Buffer
        };

        // Fresh per-kernel state.
        let entry = self.label();
        self.f = FunctionWriter::new(entry);
        self.scopes = vec![HashMap::default()];
        self.breakables.clear();
        self.jumps.clear();
        self.frames.clear();
        self.call_stack = vec![f.name.as_str()];
        self.static_local_bytes = 0;
        self.private_bytes = 0;
        self.private_live = 0;
        let words = block.push_size(args_size) / 4;
        let u = self.m.ty(TypeKey::Int(32));
        let len = self.m.u32_const(words);
        let arr = self.m.ty(TypeKey::Array(u, len));
        self.m.array_stride(arr, 4);
        let st = self.m.ty(TypeKey::BlockStruct(vec![(arr, 0)]));
        let pst = self.m.ty(TypeKey::Pointer(StorageClass::PushConstant, st));
        let push_var = self
            .m
            .global(Op::Variable, pst, &[StorageClass::PushConstant as u32]);
        self.k = KernelState {
            push_var,
            block,
            interface: BTreeSet::new(),
            builtins: HashMap::default(),
            fence_word: None,
            printf_offset,
            global_data_offset,
        };
        self.k.interface.insert(push_var);
        // Every compute entry point needs its work-group size declared.
        self.workgroup_size();
        let globals = self.global_vars.clone();
        self.k.interface.extend(globals);

        // Pool variables are known by their offset, which the next kernel
        // reuses: what was noted of the last kernel's variables goes.
        self.const_vars.clear();
        self.constant_locals.clear();
        self.generic_vars.clear();
        let min_nodes = self.caps.outline_min_nodes;
        self.outlined = self
            .call_graph
            .outlined(f.name.as_str(), min_nodes, |g| self.may_outline(g));
        self.user_functions.clear();
        self.root_types.clear();
        let private_storage = if self.outlined.is_empty() {
            StorageClass::Function
        } else {
            StorageClass::Private
        };
        self.split_pools = self.caps.split_private_pool
            && !self.generic_dynamic
            && !self.unsplit.contains(f.name.as_str());
        self.split_failed = false;
        self.open_pools(f.name.as_str(), private_storage);
        for (p, a) in f.params.iter().zip(&args) {
            match a.kind {
                ArgKind::LocalPointer if self.pool.is_some() => {
                    let offset = self.pool_arg(a.local_size_spec_id.unwrap_or(3));
                    let var = self.new_function_var(&Type::UINT);
                    self.op_void(Op::Store, &[var, offset]);
                    self.bind(
                        &p.name,
                        Sym {
                            root: var,
                            sc: StorageClass::Function,
                            ty: p.ty.clone(),
                            base: None,
                            pool: None,
                        },
                    );
                }
                ArgKind::LocalPointer => {
                    let elem = p.ty.pointee().cloned().unwrap_or(Type::Void);
                    let elem = if elem == Type::Void {
                        Type::Scalar(Scalar::UChar)
                    } else {
                        elem
                    };
                    let var = self.local_arg_array(&elem, a.local_size_spec_id.unwrap_or(3));
                    let idx_var = self.new_function_var(&Type::UINT);
                    let zero = self.u32c(0);
                    self.op_void(Op::Store, &[idx_var, zero]);
                    let base = LBase {
                        root: var,
                        sc: StorageClass::Workgroup,
                        path: Vec::new(),
                        saved: Vec::new(),
                        elem,
                        is_array: true,
                    };
                    self.bind(
                        &p.name,
                        Sym {
                            root: idx_var,
                            sc: StorageClass::Function,
                            ty: p.ty.clone(),
                            base: Some(Rc::new(base)),
                            pool: None,
                        },
                    );
                }
                _ => {
                    let v = self.read_arg(&p.ty, a.offset);
                    let sym = self.named_private(&p.name, &p.ty);
                    let place = Self::sym_place(&sym);
                    self.store(&place, &Val::new(v, p.ty.clone()), p.span);
                    self.mark_const_parameter(p, &sym);
                    self.bind(&p.name, sym);
                }
            }
        }
        let ignores_work_groups = work_groups::ignores_work_groups(f, &self.funcs);
        if ignores_work_groups {
            self.return_past_global_size();
        }
        if self.caps.register_pad {
            self.register_pad();
        }
        self.stmt(body);
        if self.f.is_open() {
            let end = if self.f.reachable() {
                Op::Return
            } else {
                Op::Unreachable
            };
            self.term(end, &[]);
        }
        if let Some(pool) = self.pool.take() {
            self.declare_pool(&pool);
        }
        self.retype_byte_slots();
        self.declare_private_pool();
        if self.split_failed {
            self.split_failures.push(f.name.clone());
        }
        let void = self.m.ty(TypeKey::Void);
        let fw = std::mem::replace(&mut self.f, FunctionWriter::new(0));
        let fid = self.add_function(fw, void, &[], 0);
        let interface: Vec<Word> = self.k.interface.iter().copied().collect();
        self.m.entry_point(fid, &f.name, &interface);
        // OpenCL keeps signed zeros, infinities and NaNs through float
        // arithmetic; Vulkan compilers may drop them unless told.
        if !self.float_mode.relaxed_specials {
            self.m.capability(Capability::SignedZeroInfNanPreserve);
            let mut widths = vec![32];
            if self.caps.fp64 {
                widths.push(64);
            }
            if self.caps.fp16 {
                widths.push(16);
            }
            for w in widths {
                self.m.execution_mode(
                    fid,
                    rspirv::spirv::ExecutionMode::SignedZeroInfNanPreserve,
                    &[w],
                );
            }
        }
        // Subnormals must survive arithmetic where the device reports
        // CL_FP_DENORM; Vulkan drivers may flush them unless told.
        let denorm_widths = [
            (32, self.caps.denorm_preserve_fp32),
            (64, self.caps.fp64 && self.caps.denorm_preserve_fp64),
            (16, self.caps.fp16 && self.caps.denorm_preserve_fp16),
        ];
        for (w, _) in denorm_widths.iter().filter(|(_, on)| *on) {
            self.m.capability(Capability::DenormPreserve);
            self.m
                .execution_mode(fid, rspirv::spirv::ExecutionMode::DenormPreserve, &[*w]);
        }
        self.m.name(fid, &f.name);
        Some(KernelInfo {
            name: f.name.clone(),
            args,
            arg_block: block,
            args_size,
            reqd_work_group_size: f.attrs.reqd_work_group_size,
            work_group_size_hint: f.attrs.work_group_size_hint,
            vec_type_hint: f.attrs.vec_type_hint.clone(),
            attributes: f.attrs.text.join(" "),
            static_local_mem_size: self.static_local_bytes,
            private_mem_size: self.private_bytes,
            uses_printf: printf_offset.is_some(),
            ignores_work_groups,
        })
    }

    /// The `Workgroup` array behind a `__local T*` argument: its length is
    /// the specialization constant `spec_id` (bytes) divided by `sizeof(T)`.
    fn local_arg_array(&mut self, elem: &Type, spec_id: u32) -> Word {
        let u = self.m.ty(TypeKey::Int(32));
        let esize = self.types.size(elem).max(1);
        let bytes = self.m.global(Op::SpecConstant, u, &[esize]);
        self.m.decorate(bytes, Decoration::SpecId, &[spec_id]);
        let div = self.m.u32_const(esize);
        let len = self
            .m
            .global(Op::SpecConstantOp, u, &[Op::UDiv as u32, bytes, div]);
        let stored = self.local_stored_type(elem);
        let e = self.sty(&stored);
        let arr = self.m.ty(TypeKey::Array(e, len));
        let p = self.m.ty(TypeKey::Pointer(StorageClass::Workgroup, arr));
        let var = self
            .m
            .global(Op::Variable, p, &[StorageClass::Workgroup as u32]);
        self.mark_float_bits(var, elem, &stored);
        self.k.interface.insert(var);
        var
    }

    /// Places a `__local` pointer argument in the pool; returns its byte
    /// offset (a specialization-constant expression).
    fn pool_arg(&mut self, spec_id: u32) -> Word {
        let u = self.m.ty(TypeKey::Int(32));
        let bytes = self.m.global(Op::SpecConstant, u, &[4]);
        self.m.decorate(bytes, Decoration::SpecId, &[spec_id]);
        let three = self.m.u32_const(3);
        let four = self.m.u32_const(4);
        let up = self
            .m
            .global(Op::SpecConstantOp, u, &[Op::IAdd as u32, bytes, three]);
        let words = self
            .m
            .global(Op::SpecConstantOp, u, &[Op::UDiv as u32, up, four]);
        let rounded = self
            .m
            .global(Op::SpecConstantOp, u, &[Op::IMul as u32, words, four]);
        let Some(offset) = self.pool.as_ref().map(|p| p.args_bytes) else {
            return three;
        };
        let next = self
            .m
            .global(Op::SpecConstantOp, u, &[Op::IAdd as u32, offset, rounded]);
        if let Some(pool) = self.pool.as_mut() {
            pool.args_bytes = next;
        }
        offset
    }

    /// Declares the private word pool of the function being written, if it
    /// has one, sized once every variable is placed.
    fn declare_private_pool(&mut self) {
        if let Some(pool) = self.ppool.take() {
            // Split, every variable has its own array (counted as a
            // `Function` variable), and no access reaches the pool unless
            // the split failed, where the module is made again.
            if pool.split.is_some() && !self.split_failed {
                return;
            }
            // The pool's variables count as the most they held at once:
            // the pool's length.
            let words = pool.static_bytes / 4 + 1;
            self.private_bytes += u64::from(words) * 4;
            let u = self.m.ty(TypeKey::Int(32));
            let len = self.m.u32_const(words);
            let arr = self.m.ty(TypeKey::Array(u, len));
            let p = self.m.ty(TypeKey::Pointer(pool.storage, arr));
            if pool.storage == StorageClass::Private {
                self.m
                    .global_with_id(Op::Variable, p, pool.var, &[StorageClass::Private as u32]);
                // SPIR-V 1.4 lists every global variable an entry point
                // reaches among its interface.
                if self.caps.spirv_version >= (1, 4) {
                    self.k.interface.insert(pool.var);
                }
            } else {
                self.f.var(p, pool.var);
            }
        }
    }

    /// Adds the finished body `fw` to the module as an `OpFunction`
    /// returning `ret`, with one `OpFunctionParameter` per `(type, id)` of
    /// `params` and the function control bits `control`; returns the
    /// function's id.
    fn add_function(
        &mut self,
        mut fw: FunctionWriter,
        ret: Word,
        params: &[(Word, Word)],
        control: u32,
    ) -> Word {
        let param_types = params.iter().map(|&(ty, _)| ty).collect();
        let fn_ty = self.m.ty(TypeKey::Function(ret, param_types));
        let id = self.m.id();
        crate::spirv::optimize_loops(
            &mut fw,
            &mut self.m,
            self.caps.hoist_loop_invariants,
            self.caps.split_loop_addresses,
        );
        let mut words = fw.finish(ret, id, fn_ty, control);
        // OpFunction is the first five words; the parameters follow it.
        let param_words = params
            .iter()
            .flat_map(|&(ty, pid)| [3 << 16 | Op::FunctionParameter as u32, ty, pid]);
        words.splice(5..5, param_words);
        self.m.add_function(words);
        id
    }

    /// The pool's `Workgroup` array, sized once every variable is placed.
    fn declare_pool(&mut self, pool: &LocalPool) {
        let u = self.m.ty(TypeKey::Int(32));
        let statics = self.m.u32_const(pool.static_bytes / 4 + 1);
        let four = self.m.u32_const(4);
        let arg_words = self.m.global(
            Op::SpecConstantOp,
            u,
            &[Op::UDiv as u32, pool.args_bytes, four],
        );
        let len = self.m.global(
            Op::SpecConstantOp,
            u,
            &[Op::IAdd as u32, arg_words, statics],
        );
        let arr = self.m.ty(TypeKey::Array(u, len));
        let p = self.m.ty(TypeKey::Pointer(StorageClass::Workgroup, arr));
        self.m
            .global_with_id(Op::Variable, p, pool.var, &[StorageClass::Workgroup as u32]);
        self.k.interface.insert(pool.var);
    }

    fn pool_word_ptr(&mut self, sc: StorageClass, offset: Word) -> PoolWord {
        // An offset computed from a constant one by indexing arrays of
        // word-sized elements at run time (`wpc[pc][3]`) indexes its word
        // as the run-time word count plus a constant, rather than its
        // byte offset shifted: offsets do not wrap, but the driver cannot
        // know that, and a shifted sum is an address computed per access
        // where a word count plus constants is one address and constant
        // displacements.
        if let Some((steps, bytes)) = self.word_steps(offset) {
            if !self.splits(sc) {
                let w = self.word_count(&steps);
                let index = self.plus_words(w, bytes / 4);
                return self.whole_pool_word_ptr(sc, index);
            }
            if let Some(p) = self.split_word_ptr_in_words(offset, &steps, bytes) {
                return p;
            }
        }
        // An offset a whole number of words past another indexes that
        // one's word plus as many: the driver then sees one address and
        // constant displacements (the words of a `ulong`, the members of
        // a struct) rather than an address per word.
        let (from, words) = match self.pool_offset_parts.get(&offset) {
            Some(&(from, bytes)) if bytes % 4 == 0 => (from, bytes / 4),
            _ => (offset, 0),
        };
        if let Some(p) = self.split_word_ptr(sc, from, words) {
            return p;
        }
        let u = self.m.ty(TypeKey::Int(32));
        let two = self.u32c(2);
        let index = self.op(Op::ShiftRightLogical, u, &[from, two]);
        let index = self.plus_words(index, words);
        self.whole_pool_word_ptr(sc, index)
    }

    /// The pointer to word `index` of the pool of `sc`.
    fn whole_pool_word_ptr(&mut self, sc: StorageClass, index: Word) -> PoolWord {
        let u = self.m.ty(TypeKey::Int(32));
        let pool = if sc == StorageClass::Workgroup {
            &self.pool
        } else {
            &self.ppool
        };
        let (var, storage) = pool.as_ref().map_or((0, sc), |p| (p.var, p.storage));
        let p = self.m.ty(TypeKey::Pointer(storage, u));
        PoolWord {
            ptr: self.op(Op::AccessChain, p, &[var, index]),
            bytes: false,
        }
    }

    fn pool_word_load(&mut self, sc: StorageClass, word: PoolWord) -> Word {
        let u = self.m.ty(TypeKey::Int(32));
        let ty = if word.bytes { self.uchar4_ty() } else { u };
        let mut args = vec![word.ptr];
        args.extend(Self::mem_operands(sc));
        let w = self.op(Op::Load, ty, &args);
        if word.bytes {
            self.op(Op::Bitcast, u, &[w])
        } else {
            w
        }
    }

    fn pool_word_store(&mut self, sc: StorageClass, word: PoolWord, value: Word) {
        let value = if word.bytes {
            let t = self.uchar4_ty();
            self.op(Op::Bitcast, t, &[value])
        } else {
            value
        };
        let mut args = vec![word.ptr, value];
        args.extend(Self::mem_operands(sc));
        self.op_void(Op::Store, &args);
    }

    fn uchar4_ty(&mut self) -> Word {
        self.sty(&Type::Vector(Scalar::UChar, 4))
    }

    /// Stores the `n` bytes of `raw` (an `n`-byte integer) from byte
    /// `lane` of a word held as `uchar4`, each through its own component.
    fn pool_byte_stores(&mut self, word: PoolWord, lane: Word, raw: Word, n: u32) {
        let u = self.m.ty(TypeKey::Int(32));
        let uc = self.m.ty(TypeKey::Int(8));
        for i in 0..n {
            let byte = if n == 1 {
                raw
            } else {
                let it = self.m.ty(TypeKey::Int(n * 8));
                let sh = self.u32c(8 * i);
                let b = self.op(Op::ShiftRightLogical, it, &[raw, sh]);
                self.op(Op::UConvert, uc, &[b])
            };
            let lane = if i == 0 {
                lane
            } else {
                let k = self.u32c(i);
                self.op(Op::IAdd, u, &[lane, k])
            };
            let p = self.pool_byte_ptr(word, lane);
            self.op_void(Op::Store, &[p, byte]);
        }
    }

    /// The byte of its word that pool offset `offset` names.
    fn byte_lane(&mut self, offset: Word) -> Word {
        let u = self.m.ty(TypeKey::Int(32));
        let three = self.u32c(3);
        self.op(Op::BitwiseAnd, u, &[offset, three])
    }

    /// The pointer to byte `lane` of a word held as `uchar4`.
    fn pool_byte_ptr(&mut self, word: PoolWord, lane: Word) -> Word {
        let uc = self.m.ty(TypeKey::Int(8));
        let p = self.m.ty(TypeKey::Pointer(StorageClass::Function, uc));
        self.op(Op::AccessChain, p, &[word.ptr, lane])
    }

    fn pool_offset_plus(&mut self, offset: Word, bytes: u32) -> Word {
        if bytes == 0 {
            return offset;
        }
        let u = self.m.ty(TypeKey::Int(32));
        let c = self.u32c(bytes);
        let o = self.op(Op::IAdd, u, &[offset, c]);
        self.note_pool_offset(offset, o, Some(bytes));
        o
    }

    /// Pool offset `to` was computed from `offset` within one object, as
    /// `offset` plus `bytes` where those are a known constant: what is
    /// known of `offset` holds for `to` (its variable in a split pool,
    /// [`split_pool`]; the word it is a constant past, `pool_word_ptr`).
    fn note_pool_offset(&mut self, offset: Word, to: Word, bytes: Option<u32>) {
        if to == offset || self.m.int_constant(to).is_some() {
            return;
        }
        self.note_derived_offset(offset, to);
        let Some(bytes) = bytes else { return };
        let (from, before) = self
            .pool_offset_parts
            .get(&offset)
            .copied()
            .unwrap_or((offset, 0));
        if let Some(total) = before.checked_add(bytes).filter(|&t| t < 1 << 30) {
            self.pool_offset_parts.insert(to, (from, total));
        }
    }

    /// Pool offset `to` is `offset` plus (minus, where `sub`) `index`
    /// elements of `size` bytes.
    fn note_pool_index(&mut self, offset: Word, to: Word, index: Word, size: u32, sub: bool) {
        // A step that folded away (`a[0]`) leaves `to` as `offset`.
        if to == offset || size == 0 || !size.is_multiple_of(4) || self.m.int_constant(to).is_some()
        {
            return;
        }
        let step = WordStep {
            index,
            words: size / 4,
            sub,
        };
        self.pool_offset_steps.insert(to, (offset, step));
    }

    /// `offset` as `4 * w + bytes`, `w` a word count the returned steps
    /// compute from 0 and `bytes` a constant: where `offset` comes from a
    /// constant offset through steps of run-time indices (at least one)
    /// and constants.
    fn word_steps(&self, offset: Word) -> Option<(Vec<WordStep>, u32)> {
        let mut steps = Vec::new();
        let mut bytes = 0u32;
        let mut at = offset;
        loop {
            if let Some(&(from, b)) = self.pool_offset_parts.get(&at) {
                bytes = bytes.checked_add(b)?;
                at = from;
            }
            if let Some((_, k)) = self.m.int_constant(at) {
                bytes = bytes.checked_add(u32::try_from(k).ok()?)?;
                break;
            }
            let &(from, step) = self.pool_offset_steps.get(&at)?;
            if steps.len() == MAX_WORD_STEPS {
                return None;
            }
            steps.push(step);
            at = from;
        }
        if steps.is_empty() || bytes >= 1 << 30 {
            return None;
        }
        steps.reverse();
        Some((steps, bytes))
    }

    /// The word count `steps` compute (see `word_steps`).
    fn word_count(&mut self, steps: &[WordStep]) -> Word {
        let u = self.m.ty(TypeKey::Int(32));
        let mut w: Option<Word> = None;
        for step in steps {
            let scaled = if step.words == 1 {
                step.index
            } else {
                let k = self.u32c(step.words);
                self.op(Op::IMul, u, &[step.index, k])
            };
            let from = match w {
                Some(w) => w,
                None if step.sub => self.u32c(0),
                None => {
                    w = Some(scaled);
                    continue;
                }
            };
            let op = if step.sub { Op::ISub } else { Op::IAdd };
            w = Some(self.op(op, u, &[from, scaled]));
        }
        w.unwrap_or_else(|| self.u32c(0))
    }

    /// Word index `index` plus `words`.
    fn plus_words(&mut self, index: Word, words: u32) -> Word {
        if words == 0 {
            return index;
        }
        let u = self.m.ty(TypeKey::Int(32));
        let k = self.u32c(words);
        self.op(Op::IAdd, u, &[index, k])
    }

    fn pool_load(&mut self, sc: StorageClass, offset: Word, ty: &Type, span: Span) -> R<Word> {
        if let Some(repr) = self.union_repr(ty) {
            return self.pool_load(sc, offset, &repr, span);
        }
        let u = self.m.ty(TypeKey::Int(32));
        match ty {
            Type::Scalar(Scalar::Bool) => {
                let b = self.pool_load(sc, offset, &Type::Scalar(Scalar::UChar), span)?;
                let zero = self.constant(&Type::Scalar(Scalar::UChar), ConstVal::Int(0));
                let bt = self.bool_ty(1);
                Some(self.op(Op::INotEqual, bt, &[b, zero]))
            }
            Type::Scalar(s) => {
                let word = self.pool_word_ptr(sc, offset);
                let raw = match s.size() {
                    1 if word.bytes => {
                        let lane = self.byte_lane(offset);
                        let p = self.pool_byte_ptr(word, lane);
                        let uc = self.m.ty(TypeKey::Int(8));
                        self.op(Op::Load, uc, &[p])
                    }
                    4 => self.pool_word_load(sc, word),
                    8 => {
                        let lo = self.pool_word_load(sc, word);
                        let o2 = self.pool_offset_plus(offset, 4);
                        let p2 = self.pool_word_ptr(sc, o2);
                        let hi = self.pool_word_load(sc, p2);
                        self.combine_u64(lo, hi)
                    }
                    n => {
                        let w = self.pool_word_load(sc, word);
                        let lane = self.byte_lane(offset);
                        let three = self.u32c(3);
                        let sh = self.op(Op::ShiftLeftLogical, u, &[lane, three]);
                        let w = self.op(Op::ShiftRightLogical, u, &[w, sh]);
                        let it = self.m.ty(TypeKey::Int(n * 8));
                        self.op(Op::UConvert, it, &[w])
                    }
                };
                Some(if s.is_float() {
                    let t = self.sty(ty);
                    self.op(Op::Bitcast, t, &[raw])
                } else {
                    raw
                })
            }
            Type::Pointer(_, sp, _) if !self.addressed(*sp) => {
                self.pool_load(sc, offset, &Type::UINT, span)
            }
            Type::Pointer(..) | Type::Opaque(_) => self.pool_load(sc, offset, &Type::ULONG, span),
            Type::Vector(s, n) => {
                let mut parts = Vec::new();
                for i in 0..*n as u32 {
                    let o = self.pool_offset_plus(offset, i * s.size());
                    parts.push(self.pool_load(sc, o, &Type::Scalar(*s), span)?);
                }
                let t = self.sty(ty);
                Some(self.op(Op::CompositeConstruct, t, &parts))
            }
            Type::Array(e, n) => {
                let esize = self.types.size(e);
                let mut parts = Vec::new();
                for i in 0..*n {
                    let o = self.pool_offset_plus(offset, i * esize);
                    parts.push(self.pool_load(sc, o, e, span)?);
                }
                let t = self.sty(ty);
                Some(self.op(Op::CompositeConstruct, t, &parts))
            }
            Type::Struct(id) => {
                let members: Vec<(Type, u32)> = self.types.structs[*id]
                    .members
                    .iter()
                    .map(|m| (m.ty.clone(), m.offset))
                    .collect();
                let mut parts = Vec::new();
                for (mt, mo) in members {
                    let o = self.pool_offset_plus(offset, mo);
                    parts.push(self.pool_load(sc, o, &mt, span)?);
                }
                let t = self.sty(ty);
                Some(self.op(Op::CompositeConstruct, t, &parts))
            }
            _ => {
                self.error(span, "cannot load a value of this type");
                None
            }
        }
    }

    fn pool_store(&mut self, sc: StorageClass, offset: Word, ty: &Type, val: Word, span: Span) {
        if let Some(repr) = self.union_repr(ty) {
            return self.pool_store(sc, offset, &repr, val, span);
        }
        let u = self.m.ty(TypeKey::Int(32));
        match ty {
            Type::Scalar(Scalar::Bool) => {
                let uc = Type::Scalar(Scalar::UChar);
                let one = self.constant(&uc, ConstVal::Int(1));
                let zero = self.constant(&uc, ConstVal::Int(0));
                let t = self.sty(&uc);
                let v = self.op(Op::Select, t, &[val, one, zero]);
                self.pool_store(sc, offset, &uc, v, span);
            }
            Type::Scalar(s) => {
                let raw = if s.is_float() {
                    let it = self.m.ty(TypeKey::Int(s.bits()));
                    self.op(Op::Bitcast, it, &[val])
                } else {
                    val
                };
                match s.size() {
                    4 => {
                        let ptr = self.pool_word_ptr(sc, offset);
                        self.pool_word_store(sc, ptr, raw);
                    }
                    8 => {
                        let lo = self.op(Op::UConvert, u, &[raw]);
                        let u64t = self.m.ty(TypeKey::Int(64));
                        let k32 = self.m.u64_const(32);
                        let hi = self.op(Op::ShiftRightLogical, u64t, &[raw, k32]);
                        let hi = self.op(Op::UConvert, u, &[hi]);
                        let p1 = self.pool_word_ptr(sc, offset);
                        self.pool_word_store(sc, p1, lo);
                        let o2 = self.pool_offset_plus(offset, 4);
                        let p2 = self.pool_word_ptr(sc, o2);
                        self.pool_word_store(sc, p2, hi);
                    }
                    n => {
                        let lane = self.byte_lane(offset);
                        let three = self.u32c(3);
                        self.hold_split_slot_as_bytes(sc, offset);
                        let word = self.pool_word_ptr(sc, offset);
                        if word.bytes {
                            self.pool_byte_stores(word, lane, raw, n);
                            return;
                        }
                        // Clear, then set, this value's bits of the word with
                        // atomics, so bytes of the same word written at the
                        // same time by other work-items are kept.
                        let w = self.op(Op::UConvert, u, &[raw]);
                        let sh = self.op(Op::ShiftLeftLogical, u, &[lane, three]);
                        let mask = self.u32c(if n == 1 { 0xff } else { 0xffff });
                        let m = self.op(Op::ShiftLeftLogical, u, &[mask, sh]);
                        let keep = self.op(Op::Not, u, &[m]);
                        let bits = self.op(Op::ShiftLeftLogical, u, &[w, sh]);
                        let ptr = word.ptr;
                        if sc == StorageClass::Workgroup {
                            let scope = self.u32c(SCOPE_WORKGROUP);
                            let relaxed = self.u32c(0);
                            self.op(Op::AtomicAnd, u, &[ptr, scope, relaxed, keep]);
                            self.op(Op::AtomicOr, u, &[ptr, scope, relaxed, bits]);
                        } else {
                            let old = self.op(Op::Load, u, &[ptr]);
                            let kept = self.op(Op::BitwiseAnd, u, &[old, keep]);
                            let new = self.op(Op::BitwiseOr, u, &[kept, bits]);
                            self.op_void(Op::Store, &[ptr, new]);
                        }
                    }
                }
            }
            Type::Pointer(_, sp, _) if !self.addressed(*sp) => {
                self.pool_store(sc, offset, &Type::UINT, val, span)
            }
            Type::Pointer(..) | Type::Opaque(_) => {
                self.pool_store(sc, offset, &Type::ULONG, val, span)
            }
            Type::Vector(es, n) => {
                let et = self.sty(&Type::Scalar(*es));
                for i in 0..*n as u32 {
                    let part = self.op(Op::CompositeExtract, et, &[val, i]);
                    let o = self.pool_offset_plus(offset, i * es.size());
                    self.pool_store(sc, o, &Type::Scalar(*es), part, span);
                }
            }
            Type::Array(e, n) => {
                let esize = self.types.size(e);
                let et = self.sty(e);
                for i in 0..*n {
                    let part = self.op(Op::CompositeExtract, et, &[val, i]);
                    let o = self.pool_offset_plus(offset, i * esize);
                    self.pool_store(sc, o, e, part, span);
                }
            }
            Type::Struct(id) => {
                let members: Vec<(Type, u32)> = self.types.structs[*id]
                    .members
                    .iter()
                    .map(|m| (m.ty.clone(), m.offset))
                    .collect();
                for (i, (mt, mo)) in members.into_iter().enumerate() {
                    let t = self.sty(&mt);
                    let part = self.op(Op::CompositeExtract, t, &[val, i as u32]);
                    let o = self.pool_offset_plus(offset, mo);
                    self.pool_store(sc, o, &mt, part, span);
                }
            }
            _ => self.error(span, "cannot store a value of this type"),
        }
    }

    /// One 32-bit word of the push-constant block (`index` may be dynamic).
    fn push_word(&mut self, index: Word) -> Word {
        let u = self.m.ty(TypeKey::Int(32));
        let p = self.m.ty(TypeKey::Pointer(StorageClass::PushConstant, u));
        let zero = self.u32c(0);
        let push = self.k.push_var;
        let ptr = self.op(Op::AccessChain, p, &[push, zero, index]);
        self.op(Op::Load, u, &[ptr])
    }

    fn push_word_at(&mut self, word: u32) -> Word {
        let c = self.u32c(word);
        self.push_word(c)
    }

    /// Word `k` of the argument data.
    fn arg_word(&mut self, k: u32) -> Word {
        let block = self.k.block;
        if block.args_pushed() {
            return self.push_word_at(block.args_offset() / 4 + k);
        }
        self.launch_buffer_word(ARGS_OFFSET / 4, k, MA_ALIGNED | MA_NON_PRIVATE)
    }

    /// Word `word` of the launch header (the crate docs), in the
    /// push-constant block or in the header buffer.
    pub(super) fn header_word(&mut self, word: u32) -> Word {
        if self.k.block != ArgBlock::HeaderBuffer {
            return self.push_word_at(word);
        }
        match PUSHED_HEADER_WORDS.iter().find(|(w, _)| *w == word) {
            Some(&(_, pushed)) => self.push_word_at(pushed),
            // The header buffer is written before the launch and never
            // during it, so its loads need no memory-model visibility.
            None => self.launch_buffer_word(HEADER_BUFFER_ADDRESS / 4, word, MA_ALIGNED),
        }
    }

    /// Word `k` of the launch buffer whose device address is the 64-bit
    /// value at word `address_word` of the push-constant block.
    fn launch_buffer_word(&mut self, address_word: u32, k: u32, access: u32) -> Word {
        let lo = self.push_word_at(address_word);
        let hi = self.push_word_at(address_word + 1);
        let addr = self.combine_u64(lo, hi);
        let u64t = self.m.ty(TypeKey::Int(64));
        let off = self.m.u64_const(4 * u64::from(k));
        let a = self.op(Op::IAdd, u64t, &[addr, off]);
        let u = self.m.ty(TypeKey::Int(32));
        let p = self
            .m
            .ty(TypeKey::Pointer(StorageClass::PhysicalStorageBuffer, u));
        let ptr = self.op(Op::ConvertUToPtr, p, &[a]);
        self.op(Op::Load, u, &[ptr, access, 4])
    }

    fn combine_u64(&mut self, lo: Word, hi: Word) -> Word {
        let u64t = self.m.ty(TypeKey::Int(64));
        let lo = self.op(Op::UConvert, u64t, &[lo]);
        let hi = self.op(Op::UConvert, u64t, &[hi]);
        let sh = self.m.u64_const(32);
        let hi = self.op(Op::ShiftLeftLogical, u64t, &[hi, sh]);
        self.op(Op::BitwiseOr, u64t, &[lo, hi])
    }

    /// Reads an argument of type `t` at byte `off` of the argument data,
    /// word by word (so no 8- or 16-bit push-constant access is needed).
    fn read_arg(&mut self, t: &Type, off: u32) -> Word {
        if let Some(repr) = self.union_repr(t) {
            return self.read_arg(&repr, off);
        }
        match t {
            Type::Scalar(s) => {
                let u = self.m.ty(TypeKey::Int(32));
                let raw = match s.size() {
                    8 => {
                        let lo = self.arg_word(off / 4);
                        let hi = self.arg_word(off / 4 + 1);
                        self.combine_u64(lo, hi)
                    }
                    4 => self.arg_word(off / 4),
                    n => {
                        let w = self.arg_word(off / 4);
                        let sh = self.u32c(8 * (off % 4));
                        let w = self.op(Op::ShiftRightLogical, u, &[w, sh]);
                        let it = self.m.ty(TypeKey::Int(n * 8));
                        self.op(Op::UConvert, it, &[w])
                    }
                };
                if s.is_float() {
                    let ft = self.sty(t);
                    self.op(Op::Bitcast, ft, &[raw])
                } else {
                    raw
                }
            }
            Type::Vector(s, n) => {
                let mut comps = Vec::new();
                for i in 0..*n as u32 {
                    comps.push(self.read_arg(&Type::Scalar(*s), off + i * s.size()));
                }
                let ty = self.sty(t);
                self.op(Op::CompositeConstruct, ty, &comps)
            }
            Type::Pointer(..) | Type::Opaque(_) => {
                let lo = self.arg_word(off / 4);
                let hi = self.arg_word(off / 4 + 1);
                self.combine_u64(lo, hi)
            }
            Type::Array(e, n) => {
                let esize = self.types.size(e);
                let mut comps = Vec::new();
                for i in 0..*n {
                    comps.push(self.read_arg(e, off + i * esize));
                }
                let ty = self.sty(t);
                self.op(Op::CompositeConstruct, ty, &comps)
            }
            Type::Struct(id) => {
                let members: Vec<(Type, u32)> = self.types.structs[*id]
                    .members
                    .iter()
                    .map(|m| (m.ty.clone(), m.offset))
                    .collect();
                let mut comps = Vec::new();
                for (mt, mo) in members {
                    comps.push(self.read_arg(&mt, off + mo));
                }
                let ty = self.sty(t);
                self.op(Op::CompositeConstruct, ty, &comps)
            }
            Type::Void => self.u32c(0),
        }
    }

    // ---- statements ------------------------------------------------------------

    fn stmt(&mut self, s: &'a Stmt) {
        match &s.kind {
            StmtKind::Empty => {}
            StmtKind::Expr(e) => {
                self.expr(e);
            }
            StmtKind::Decl(vars) => {
                for v in vars {
                    self.local_decl(v);
                }
            }
            StmtKind::Block(items) => {
                self.scopes.push(HashMap::default());
                let mark = self.private_top();
                let regions = self.goto_regions(items);
                self.sequence(items, 0, items.len(), &regions);
                self.release_private(mark);
                self.scopes.pop();
            }
            StmtKind::Label(_, inner) => self.stmt(inner),
            StmtKind::Goto(name) => {
                let floor = self.frame_breakables();
                let found = (floor..self.breakables.len()).rev().find_map(|i| {
                    match &self.breakables[i].kind {
                        Construct::GotoForward(l) if l == name => Some((i, false)),
                        Construct::GotoBackward(l) if l == name => Some((i, true)),
                        _ => None,
                    }
                });
                match found {
                    Some((target, backward)) => self.jump(target, backward),
                    None => self.error(
                        s.span,
                        format!(
                            "cannot jump to label '{name}' from here: the label is inside \
                             a statement this goto is not in, or the jump enters a loop; \
                             such control flow cannot be structured"
                        ),
                    ),
                }
            }
            StmtKind::If(c, then, els) => {
                // A chain of funnel shifts picked by a value: one shift.
                if let Some(chain) = funnel::FunnelChain::of(s) {
                    if self.funnel_chain(&chain, s.span) {
                        return;
                    }
                }
                let Some(cond) = self.cond(c) else { return };
                let (t, m) = (self.label(), self.label());
                let e = if els.is_some() { self.label() } else { m };
                self.op_void(Op::SelectionMerge, &[m, 0]);
                self.term(Op::BranchConditional, &[cond, t, e]);
                self.f.begin(t);
                self.scoped(then);
                if self.f.is_open() {
                    self.branch(m);
                }
                if let Some(els) = els {
                    self.f.begin(e);
                    self.scoped(els);
                    if self.f.is_open() {
                        self.branch(m);
                    }
                }
                self.f.begin(m);
            }
            StmtKind::While(c, body) => self.loop_stmt(s.span, None, Some(c), None, body, false),
            StmtKind::DoWhile(body, c) => self.loop_stmt(s.span, None, Some(c), None, body, true),
            StmtKind::For(init, c, step, body) => {
                self.scopes.push(HashMap::default());
                self.loop_stmt(
                    s.span,
                    init.as_deref(),
                    c.as_ref(),
                    step.as_ref(),
                    body,
                    false,
                );
                self.scopes.pop();
            }
            StmtKind::Break => {
                let floor = self.frame_breakables();
                let target = (floor..self.breakables.len()).rev().find(|&i| {
                    matches!(self.breakables[i].kind, Construct::Loop | Construct::Switch)
                });
                match target {
                    Some(t) => self.jump(t, false),
                    None => self.error(s.span, "'break' statement not in loop or switch statement"),
                }
            }
            StmtKind::Continue => {
                let floor = self.frame_breakables();
                let target = (floor..self.breakables.len())
                    .rev()
                    .find(|&i| self.breakables[i].kind == Construct::Loop);
                match target {
                    Some(t) => self.jump(t, true),
                    None => self.error(s.span, "'continue' statement not in loop statement"),
                }
            }
            StmtKind::Return(e) => self.return_stmt(e.as_ref(), s.span),
            StmtKind::Switch(e, body) => self.switch_stmt(e, body, s.span),
            StmtKind::Case(_, _) => {
                self.error(
                    s.span,
                    "'case' label not directly inside a switch statement body",
                );
            }
        }
    }

    /// Lowers `items[lo..hi]`, each goto region among them as its
    /// construct.
    fn sequence(&mut self, items: &'a [Stmt], lo: usize, hi: usize, regions: &[GotoRegion]) {
        let mut i = lo;
        while i < hi {
            let outer = regions
                .iter()
                .enumerate()
                .filter(|(_, r)| r.start == i && r.end <= hi)
                .max_by_key(|(_, r)| (r.end, r.backward));
            let Some((k, r)) = outer else {
                if self.dead == 0 && self.at_dead_point() {
                    self.lower_dead(&items[i]);
                } else {
                    self.stmt(&items[i]);
                }
                i += 1;
                continue;
            };
            let inner: Vec<GotoRegion> = regions
                .iter()
                .enumerate()
                .filter(|&(m, q)| m != k && q.start >= r.start && q.end <= r.end)
                .map(|(_, q)| q.clone())
                .collect();
            if self.dead == 0 && self.at_dead_point() {
                // Nothing enters the region but through its first
                // statement, so it is all dead.
                self.dead_code(|l| l.goto_region(items, r, &inner));
            } else {
                self.goto_region(items, r, &inner);
            }
            i = r.end;
        }
    }

    /// A goto region: a loop construct whose body is the region's
    /// statements. A forward goto breaks out of it (landing on the label
    /// that follows); a backward goto continues it (its continue block
    /// goes back to the label's statement, the first of the body).
    fn goto_region(&mut self, items: &'a [Stmt], r: &GotoRegion, inner: &[GotoRegion]) {
        let (header, body_l, cont, merge) =
            (self.label(), self.label(), self.label(), self.label());
        self.begin(header);
        self.op_void(Op::LoopMerge, &[merge, cont, 0]);
        self.branch(body_l);
        self.f.begin(body_l);
        self.breakables.push(Breakable {
            merge,
            cont: Some(cont),
            kind: if r.backward {
                Construct::GotoBackward(r.label.clone())
            } else {
                Construct::GotoForward(r.label.clone())
            },
        });
        let returns = self.frames.last().is_some_and(|f| f.flag.is_some());
        self.sequence(items, r.start, r.end, inner);
        self.breakables.pop();
        if self.f.is_open() {
            self.branch(merge);
        }
        self.f.begin(cont);
        self.term(Op::Branch, &[header]);
        self.f.begin(merge);
        if returns {
            self.propagate_return();
        }
        self.land_jumps();
    }

    /// Where each label among `items` needs a goto construct: from its
    /// first forward goto to the label, and from the label to its last
    /// backward goto. Regions that overlap without nesting are widened
    /// until they nest, where that keeps the program's meaning (a forward
    /// region may start earlier, a backward one end later); a jump into a
    /// loop cannot be structured and is an error.
    fn goto_regions(&mut self, items: &'a [Stmt]) -> Vec<GotoRegion> {
        let mut regions = Vec::new();
        for (j, it) in items.iter().enumerate() {
            let mut labels = Vec::new();
            let mut cur = it;
            while let StmtKind::Label(name, inner) = &cur.kind {
                labels.push(name.as_str());
                cur = inner;
            }
            for name in labels {
                if let Some(a) = items[..j].iter().position(|x| has_goto(x, name)) {
                    regions.push(GotoRegion {
                        start: a,
                        end: j,
                        label: name.to_string(),
                        backward: false,
                    });
                }
                if let Some(b) = items[j..].iter().rposition(|x| has_goto(x, name)) {
                    regions.push(GotoRegion {
                        start: j,
                        end: j + b + 1,
                        label: name.to_string(),
                        backward: true,
                    });
                }
            }
        }
        loop {
            let mut changed = false;
            for x in 0..regions.len() {
                for y in 0..regions.len() {
                    let (a, b) = (&regions[x], &regions[y]);
                    if !(a.start < b.start && b.start < a.end && a.end < b.end) {
                        continue;
                    }
                    if !b.backward {
                        regions[y].start = regions[x].start;
                    } else if a.backward {
                        regions[x].end = regions[y].end;
                    } else {
                        let (fwd, back) = (a.label.clone(), b.label.clone());
                        let at = items[a.end].span;
                        self.error(
                            at,
                            format!(
                                "a forward goto to label '{fwd}' enters the loop that the \
                                 backward goto to '{back}' forms; such control flow cannot \
                                 be structured"
                            ),
                        );
                        regions.swap_remove(x.max(y));
                        regions.swap_remove(x.min(y));
                        return regions;
                    }
                    changed = true;
                }
            }
            if !changed {
                return regions;
            }
        }
    }

    /// Leaves the constructs up to `breakables[target]` and lands on its
    /// merge, or on its continue block.
    fn jump(&mut self, target: usize, to_continue: bool) {
        let n = self.breakables.len();
        let b = &self.breakables[target];
        let landing = if to_continue {
            b.cont.unwrap_or(b.merge)
        } else {
            b.merge
        };
        // A continue may leave switches directly: they are not loops.
        let direct =
            (target + 1..n).all(|i| to_continue && self.breakables[i].kind == Construct::Switch);
        if direct {
            self.branch(landing);
            return;
        }
        let flag = match self
            .jumps
            .iter()
            .find(|j| j.target == target && j.to_continue == to_continue)
        {
            Some(j) => j.flag,
            None => {
                let bt = self.m.ty(TypeKey::Bool);
                let p = self.m.ty(TypeKey::Pointer(StorageClass::Function, bt));
                let flag = self.m.id();
                let fls = self.m.constant(ConstKey::False);
                // Initialised in its declaration: each landing clears it
                // again, so a jump inside a loop finds it false.
                self.f.vars.extend_from_slice(&[
                    (5 << 16) | Op::Variable as u32,
                    p,
                    flag,
                    StorageClass::Function as u32,
                    fls,
                ]);
                self.jumps.push(PendingJump {
                    flag,
                    target,
                    to_continue,
                });
                flag
            }
        };
        let t = self.m.constant(ConstKey::True);
        self.op_void(Op::Store, &[flag, t]);
        let innermost = self.breakables[n - 1].merge;
        self.branch(innermost);
    }

    /// After a construct's merge: the pending jumps that left it go on
    /// leaving, or land when their target is the construct now innermost.
    fn land_jumps(&mut self) {
        let n = self.breakables.len();
        self.jumps.retain(|j| j.target < n);
        let floor = self.frame_breakables();
        let pending: Vec<(Word, usize, bool)> = self
            .jumps
            .iter()
            .filter(|j| j.target >= floor)
            .map(|j| (j.flag, j.target, j.to_continue))
            .collect();
        for (flag, target, to_continue) in pending {
            if self.at_dead_point() {
                return;
            }
            let b = self.m.ty(TypeKey::Bool);
            let set = self.op(Op::Load, b, &[flag]);
            let next = self.label();
            let leave = if target + 1 == n {
                self.label()
            } else {
                self.breakables[n - 1].merge
            };
            self.op_void(Op::SelectionMerge, &[next, 0]);
            self.term(Op::BranchConditional, &[set, leave, next]);
            if target + 1 == n {
                self.f.begin(leave);
                let fls = self.m.constant(ConstKey::False);
                self.op_void(Op::Store, &[flag, fls]);
                let t = &self.breakables[target];
                let landing = if to_continue {
                    t.cont.unwrap_or(t.merge)
                } else {
                    t.merge
                };
                self.term(Op::Branch, &[landing]);
            }
            self.f.begin(next);
        }
    }

    fn scoped(&mut self, s: &'a Stmt) {
        self.scopes.push(HashMap::default());
        self.stmt(s);
        self.scopes.pop();
    }

    fn frame_breakables(&self) -> usize {
        self.frames.last().map_or(0, |f| f.breakables_at_entry)
    }

    /// while, do-while and for: header (loop merge), condition, body,
    /// continue block (the step), merge.
    fn loop_stmt(
        &mut self,
        span: Span,
        init: Option<&'a Stmt>,
        cond: Option<&'a Expr>,
        step: Option<&'a Expr>,
        body: &'a Stmt,
        do_while: bool,
    ) {
        let hint = self.tu.loop_hints.get(&span).copied();
        if let Some(i) = init {
            self.stmt(i);
        }
        // A few constant trips over a private array: copies of the body
        // and no loop (unroll.rs says why).
        if self.caps.copy_out_private_loops
            && !do_while
            && !matches!(hint, Some(LoopHint::Never | LoopHint::Count(_)))
        {
            if let (Some(s), Some(plan)) = (step, self.full_unroll_plan(init, cond, step, body)) {
                self.unrolled_completely(plan, s, body);
                return;
            }
        }
        // An unrolled loop first, when this one qualifies; the loop below
        // then runs the iterations it leaves.
        let unrolled = match (do_while, cond, step, hint) {
            (_, _, _, Some(LoopHint::Never)) => None,
            (false, Some(_), Some(s), _) => self
                .unroll_plan(cond, step, body, hint)
                .map(|plan| self.unrolled_loop(&plan, s, body)),
            _ => None,
        };
        let (header, body_l, cont, merge) =
            (self.label(), self.label(), self.label(), self.label());
        self.begin(header);
        // The loop after an unrolled one runs fewer iterations than the
        // unroll factor: NVIDIA's compiler unrolled it too, which cost the
        // unrolled loop most of its gain (unroll.rs). A hint the compiler
        // could not follow itself is passed on to the driver.
        let control = match hint {
            _ if unrolled.is_some() => unroll::DONT_UNROLL,
            Some(LoopHint::Never) => unroll::DONT_UNROLL,
            Some(LoopHint::Full | LoopHint::Count(_)) => unroll::UNROLL,
            None if !do_while && self.constant_trip_hint(init, cond, step, body) => unroll::UNROLL,
            None => 0,
        };
        self.op_void(Op::LoopMerge, &[merge, cont, control]);
        if do_while || cond.is_none() {
            self.branch(body_l);
        } else {
            let check = self.label();
            self.branch(check);
            self.f.begin(check);
            let c = cond.and_then(|c| self.cond(c));
            let c = c.unwrap_or_else(|| self.m.constant(ConstKey::False));
            self.term(Op::BranchConditional, &[c, body_l, merge]);
        }
        self.f.begin(body_l);
        self.breakables.push(Breakable {
            merge,
            cont: Some(cont),
            kind: Construct::Loop,
        });
        let returns_before = self.frames.last().map(|f| f.flag.is_some());
        self.scoped(body);
        self.breakables.pop();
        if self.f.is_open() {
            self.branch(cont);
        }
        self.f.begin(cont);
        if let Some(s) = step {
            self.expr(s);
        }
        if do_while {
            let c = cond.and_then(|c| self.cond(c));
            let c = c.unwrap_or_else(|| self.m.constant(ConstKey::False));
            self.term(Op::BranchConditional, &[c, header, merge]);
        } else {
            self.term(Op::Branch, &[header]);
        }
        self.f.begin(merge);
        if returns_before == Some(true) {
            self.propagate_return();
        }
        self.land_jumps();
        if let Some(keep) = unrolled {
            self.diags.list.truncate(keep);
        }
    }

    /// After a loop or switch inside an inlined function with early
    /// returns: leave the next enclosing construct too if `return` ran.
    fn propagate_return(&mut self) {
        let Some(frame) = self.frames.last() else {
            return;
        };
        let Some(flag) = frame.flag else { return };
        let target = if self.breakables.len() > frame.breakables_at_entry {
            self.breakables.last().map_or(frame.exit, |b| b.merge)
        } else {
            frame.exit
        };
        let b = self.m.ty(TypeKey::Bool);
        let f = self.op(Op::Load, b, &[flag]);
        let next = self.label();
        self.op_void(Op::SelectionMerge, &[next, 0]);
        self.term(Op::BranchConditional, &[f, target, next]);
        self.f.begin(next);
    }

    fn switch_stmt(&mut self, e: &'a Expr, body: &'a Stmt, span: Span) {
        let Some(v) = self.expr(e) else { return };
        let Some(s) =
            v.ty.scalar()
                .filter(|s| s.is_integer() || *s == Scalar::Bool)
        else {
            self.error(e.span, "switch condition must have integer type");
            return;
        };
        let promoted = Type::Scalar(crate::sema::types::promote(s));
        let Some(v) = self.convert(v, &promoted, e.span, false) else {
            return;
        };
        let wide = promoted.scalar().is_some_and(|s| s.bits() == 64);
        let items: &'a [Stmt] = match &body.kind {
            StmtKind::Block(items) => items,
            _ => std::slice::from_ref(body),
        };
        // Segments: each starts at a case label (nested labels share one).
        let merge = self.label();
        let mut cases: Vec<(i64, Word)> = Vec::new();
        let mut default = None;
        let mut segments: Vec<(Word, Vec<&'a Stmt>)> = Vec::new();
        for it in items {
            let mut cur = it;
            let mut label = None;
            while let StmtKind::Case(val, inner) = &cur.kind {
                let l = *label.get_or_insert_with(|| self.m.id());
                match val {
                    Some(c) => {
                        let c = consteval::wrap_to(*c, promoted.scalar().unwrap_or(Scalar::Int));
                        if cases.iter().any(|(x, _)| *x == c) {
                            self.error(cur.span, format!("duplicate case value '{c}'"));
                        }
                        cases.push((c, l));
                    }
                    None => {
                        if default.is_some() {
                            self.error(cur.span, "multiple default labels in one switch");
                        }
                        default = Some(l);
                    }
                }
                cur = inner;
            }
            match label {
                Some(l) => segments.push((l, vec![cur])),
                None => match segments.last_mut() {
                    Some(seg) => seg.1.push(cur),
                    None => self.diags.warning(
                        it.span,
                        "statement before the first case label is never run",
                    ),
                },
            }
        }
        let _ = span;
        let mut ops = vec![v.id, default.unwrap_or(merge)];
        for (c, l) in &cases {
            ops.push(*c as u32);
            if wide {
                ops.push((*c as u64 >> 32) as u32);
            }
            ops.push(*l);
        }
        self.op_void(Op::SelectionMerge, &[merge, 0]);
        let mut labels: Vec<Word> = cases.iter().map(|c| c.1).collect();
        labels.push(default.unwrap_or(merge));
        self.term(Op::Switch, &ops);
        self.f.mark_targets(&labels);
        self.breakables.push(Breakable {
            merge,
            cont: None,
            kind: Construct::Switch,
        });
        let has_flag = self.frames.last().is_some_and(|f| f.flag.is_some());
        self.scopes.push(HashMap::default());
        for (label, stmts) in segments {
            self.begin(label);
            for s in stmts {
                if self.dead == 0 && self.at_dead_point() {
                    self.lower_dead(s);
                } else {
                    self.stmt(s);
                }
            }
        }
        self.scopes.pop();
        self.breakables.pop();
        if self.f.is_open() {
            self.branch(merge);
        }
        self.f.begin(merge);
        if has_flag {
            self.propagate_return();
        }
        self.land_jumps();
    }

    fn return_stmt(&mut self, e: Option<&'a Expr>, span: Span) {
        let Some(frame) = self.frames.last() else {
            if let Some(e) = e {
                self.expr(e);
                self.error(span, "a kernel cannot return a value");
            }
            self.term(Op::Return, &[]);
            return;
        };
        let (ret_ty, ret_var, flag, exit, floor) = (
            frame.ret_ty.clone(),
            frame.ret_var,
            frame.flag,
            frame.exit,
            frame.breakables_at_entry,
        );
        let generic = frame.generic_ret;
        match (e, ret_var) {
            (Some(e), Some(var)) => {
                if let Some(v) = self.expr(e) {
                    if let Some(v) = self.convert(v, &ret_ty, e.span, false) {
                        self.op_void(Op::Store, &[var, v.id]);
                        self.note_pointer_store(var, &v);
                        self.set_return_base(v.base, e.span);
                    }
                }
            }
            (Some(e), None) if generic => {
                if let Some(v) = self.expr(e) {
                    // The first return fixes the generic pointer's space.
                    let ty = self.generic_resolved(&ret_ty, &v);
                    if let Some(v) = self.convert(v, &ty, e.span, false) {
                        let var = self.new_function_var(&ty);
                        self.op_void(Op::Store, &[var, v.id]);
                        self.note_pointer_store(var, &v);
                        if let Some(frame) = self.frames.last_mut() {
                            frame.ret_ty = ty;
                            frame.ret_var = Some(var);
                            frame.ret_base = v.base;
                        }
                    }
                }
            }
            (Some(e), None) => {
                self.expr(e);
                self.error(e.span, "void function should not return a value");
            }
            (None, Some(_)) => self.error(span, "non-void function should return a value"),
            (None, None) if generic => self.error(span, "non-void function should return a value"),
            (None, None) => {}
        }
        if let Some(flag) = flag {
            let t = self.m.constant(ConstKey::True);
            self.op_void(Op::Store, &[flag, t]);
            let target = if self.breakables.len() > floor {
                self.breakables.last().map_or(exit, |b| b.merge)
            } else {
                exit
            };
            self.branch(target);
        }
    }

    /// A returned `__local`/`__private` pointer's target; every return of
    /// one function must point into the same object.
    fn set_return_base(&mut self, base: Option<Rc<LBase>>, span: Span) {
        let Some(base) = base else { return };
        let Some(frame) = self.frames.last_mut() else {
            return;
        };
        match &frame.ret_base {
            None => frame.ret_base = Some(base),
            Some(old) if **old == *base => {}
            Some(_) => self.generic_limitation(
                span,
                "this function returns pointers into different __local/__private \
                 objects; that is not supported yet",
            ),
        }
    }

    /// The type a generic pointer of declared type `declared` takes when
    /// it gets `v`: `v`'s address space (every call is inlined, so the
    /// space is known where the pointer is made). A pointer into
    /// program-scope `__constant` data is held like a `__private` one.
    pub(super) fn generic_resolved(&self, declared: &Type, v: &Val) -> Type {
        if self.generic_dynamic {
            return declared.clone();
        }
        let (Type::Pointer(elem, AddrSpace::Private, q), Type::Pointer(_, sp, _)) =
            (declared, &v.ty)
        else {
            return declared.clone();
        };
        if v.base
            .as_ref()
            .is_some_and(|b| b.sc == StorageClass::Private)
        {
            return Type::Pointer(elem.clone(), AddrSpace::Private, *q);
        }
        Type::Pointer(elem.clone(), *sp, *q)
    }

    /// Is `name` a generic pointer variable no assignment has given an
    /// address space yet?
    pub(super) fn unresolved_generic(&self, name: &str) -> bool {
        self.lookup(name)
            .is_some_and(|s| self.generic_vars.contains(&(s.root, s.pool)))
    }

    /// The first assignment to a generic pointer variable fixes its address
    /// space: the variable is remade with that type.
    pub(super) fn resolve_generic(&mut self, name: &str, v: &Val) {
        let Some(sym) = self.lookup(name) else { return };
        self.generic_vars.remove(&(sym.root, sym.pool));
        let ty = self.generic_resolved(&sym.ty, v);
        if ty == sym.ty {
            return;
        }
        let new = self.named_private(name, &ty);
        for s in self.scopes.iter_mut().rev() {
            if let Some(old) = s.get_mut(name) {
                *old = new;
                return;
            }
        }
    }

    fn local_decl(&mut self, v: &'a VarDecl) {
        if self
            .scopes
            .last()
            .is_some_and(|s| s.contains_key(v.name.as_str()))
        {
            self.error(v.span, format!("redefinition of '{}'", v.name));
            return;
        }
        if matches!(
            v.ty,
            Type::Scalar(Scalar::Half) | Type::Vector(Scalar::Half, _)
        ) && !self.caps.fp16
            && self.in_library == 0
        {
            self.error(
                v.span,
                "variables of type 'half' need cl_khr_fp16; without it half is only \
                 accessed through pointers (vload_half, vstore_half)",
            );
            return;
        }
        if v.is_static {
            // Made before the kernels (errors reported then).
            if let Some(sym) = self.function_statics.get(&v.span).cloned() {
                self.bind(&v.name, sym);
            }
            return;
        }
        if v.ty == Type::Void {
            self.error(
                v.span,
                format!("variable '{}' has incomplete type 'void'", v.name),
            );
            return;
        }
        if let Type::Struct(id) = v.ty {
            if !self.types.structs.get(id).is_some_and(|s| s.complete) {
                self.error(v.span, format!("variable '{}' has incomplete type", v.name));
                return;
            }
        }
        let pooled = match v.space {
            AddrSpace::Local => self.pool.is_some(),
            _ => self.ppool.is_some(),
        };
        if self.contains_union(&v.ty) && !pooled {
            self.error(
                v.span,
                "unions in __private or __local memory are not supported yet",
            );
            return;
        }
        if matches!(v.ty, Type::Opaque(n) if n != "event_t") {
            self.opaque_local(v);
            return;
        }
        if self.types.size(&v.ty) > MAX_VARIABLE_BYTES {
            self.error(
                v.span,
                format!(
                    "variable '{}' is larger than the {MAX_VARIABLE_BYTES} bytes supported",
                    v.name
                ),
            );
            return;
        }
        if v.ty.elem_scalar() == Some(Scalar::Double) && !self.caps.fp64 {
            self.error(v.span, "type 'double' requires cl_khr_fp64 support");
            return;
        }
        match v.space {
            AddrSpace::Local if self.pool.is_some() => {
                if !(self.frames.is_empty() && self.call_stack.len() == 1) {
                    self.error(
                        v.span,
                        "__local variables can only be declared at kernel function scope",
                    );
                    return;
                }
                if v.init.is_some() {
                    self.error(v.span, "__local variables cannot have an initializer");
                }
                let (size, align) = self.types.size_align(&v.ty);
                let Some(pool) = self.pool.as_mut() else {
                    return;
                };
                let at = pool.place(size, align);
                let args_bytes = pool.args_bytes;
                self.static_local_bytes += size as u64;
                let u = self.m.ty(TypeKey::Int(32));
                let c = self.m.u32_const(at);
                let offset =
                    self.m
                        .global(Op::SpecConstantOp, u, &[Op::IAdd as u32, args_bytes, c]);
                self.bind(
                    &v.name,
                    Sym {
                        root: 0,
                        sc: StorageClass::Workgroup,
                        ty: v.ty.clone(),
                        base: None,
                        pool: Some(offset),
                    },
                );
                return;
            }
            AddrSpace::Local => {
                if self.frames.is_empty() && self.call_stack.len() == 1 {
                    let stored = self.local_stored_type(&v.ty);
                    let p = self.ptr_ty(StorageClass::Workgroup, &stored);
                    let var = self
                        .m
                        .global(Op::Variable, p, &[StorageClass::Workgroup as u32]);
                    self.mark_float_bits(var, &v.ty, &stored);
                    self.m.name(var, &v.name);
                    self.k.interface.insert(var);
                    self.static_local_bytes += self.types.size(&v.ty) as u64;
                    if v.init.is_some() {
                        self.error(v.span, "__local variables cannot have an initializer");
                    }
                    self.bind(
                        &v.name,
                        Sym {
                            root: var,
                            sc: StorageClass::Workgroup,
                            ty: v.ty.clone(),
                            base: None,
                            pool: None,
                        },
                    );
                } else {
                    self.error(
                        v.span,
                        "__local variables can only be declared at kernel function scope",
                    );
                }
                return;
            }
            AddrSpace::Global | AddrSpace::Constant => {
                self.error(
                    v.span,
                    format!(
                        "function-scope variables cannot be declared in the {} address space",
                        v.space.keyword()
                    ),
                );
                return;
            }
            AddrSpace::Private => {}
        }
        // A pointer declared without an address space and initialised from
        // a __global, __constant or __local pointer takes that space, as a
        // generic pointer does (OpenCL C 2.0 and 3.0; every call is inlined,
        // so it is known). Before 2.0 such a pointer is __private, and the
        // conversion an error. A pointer into program-scope __constant data
        // is held like a __private one, whatever the declared space.
        if let (Type::Pointer(elem, declared, q), Some(Init::Expr(e))) = (&v.ty, &v.init) {
            let Some(val) = self.expr(e) else { return };
            let into_constant_data = val
                .base
                .as_ref()
                .is_some_and(|b| b.sc == StorageClass::Private);
            let ty = match &val.ty {
                _ if into_constant_data => Type::Pointer(elem.clone(), AddrSpace::Private, *q),
                Type::Pointer(_, sp, _)
                    if *sp != AddrSpace::Private
                        && *declared == AddrSpace::Private
                        && self.cl_version >= 200
                        && !self.generic_dynamic =>
                {
                    Type::Pointer(elem.clone(), *sp, *q)
                }
                _ => v.ty.clone(),
            };
            let sym = self.named_private(&v.name, &ty);
            let place = Self::sym_place(&sym);
            self.bind(&v.name, sym);
            if let Some(val) = self.convert(val, &ty, e.span, false) {
                self.store(&place, &val, e.span);
                self.set_pointer_base(&v.name, val.base.clone(), v.span);
            }
            return;
        }
        let sym = self.named_private(&v.name, &v.ty);
        let place = Self::sym_place(&sym);
        if self.cl_version >= 200
            && !self.generic_dynamic
            && v.init.is_none()
            && matches!(v.ty, Type::Pointer(_, AddrSpace::Private, _))
        {
            self.generic_vars.insert((sym.root, sym.pool));
        }
        let key = (sym.root, sym.pool);
        if v.qual & crate::sema::types::qual::CONST != 0 && !v.ty.is_pointer() {
            self.const_vars.insert(key);
        }
        self.bind(&v.name, sym);
        if let (Some(Init::Expr(e)), true) = (&v.init, self.may_be_constant_local(v)) {
            let Some(val) = self.expr(e) else { return };
            let Some(val) = self.convert(val, &v.ty, e.span, false) else {
                return;
            };
            self.store(&place, &val, e.span);
            self.note_constant_local(key, val.id);
            return;
        }
        if let Some(init) = &v.init {
            if let Init::List(..) = init {
                let ty = self.sty(&v.ty);
                let null = self.m.constant(ConstKey::Null(ty));
                self.store(&place, &Val::new(null, v.ty.clone()), v.span);
            }
            if let Some(base) = self.initialize(place, &v.ty, init) {
                self.set_pointer_base(&v.name, Some(base), v.span);
            }
        }
    }

    /// Whether reads of `v` may be its initializer's value, should that be
    /// a constant: a `const` local of integer type whose address the
    /// program never takes. The variable is still stored, so every other
    /// way of reading it holds the same value.
    fn may_be_constant_local(&self, v: &VarDecl) -> bool {
        self.caps.const_locals_as_constants
            && v.qual & crate::sema::types::qual::CONST != 0
            && matches!(v.ty, Type::Scalar(s) if s.is_integer())
            && !self.is_addressed(&v.name)
    }

    /// Notes that the `const` local `key` holds `id`, where `id` is a
    /// constant: reads of it are then that constant. Hashcat writes its
    /// sizes so (`const u32 zSIZE = STATE_CNT4;`), and loops bounded by
    /// them (`for (u32 z = 0; z < zSIZE; z++) T[z] = V[...]`) are then
    /// loops of constant trips: copied out where that is done (unroll.rs),
    /// their addresses a row's base plus constant offsets (expr.rs,
    /// `pointer_add`), rather than unrolled by four at run time with every
    /// element's address computed.
    fn note_constant_local(&mut self, key: (Word, Option<Word>), id: Word) {
        if self.m.int_constant(id).is_some() {
            self.constant_locals.insert(key, id);
        }
    }

    /// The constant the `const` local `name` holds, where it is one.
    pub(super) fn constant_local(&self, name: &str) -> Option<Val> {
        if self.constant_locals.is_empty() {
            return None;
        }
        let sym = self.symbol(name)?;
        let id = *self.constant_locals.get(&(sym.root, sym.pool))?;
        Some(Val::new(id, sym.ty.clone()))
    }

    /// How a union's value is held: its bytes as an array of 32-bit words
    /// (or of bytes when its size or alignment is not a multiple of 4).
    fn union_repr(&self, t: &Type) -> Option<Type> {
        let Type::Struct(id) = t else { return None };
        let def = self.types.structs.get(*id)?;
        if !def.is_union {
            return None;
        }
        let (unit, n) = if def.size % 4 == 0 && def.align >= 4 {
            (Scalar::UInt, def.size / 4)
        } else {
            (Scalar::UChar, def.size)
        };
        Some(Type::Array(TypeRef::new(Type::Scalar(unit)), n.max(1)))
    }

    fn contains_union(&self, t: &Type) -> bool {
        self.types.contains_union(t)
    }

    /// Whether `__private` pointers of the kernel being lowered are byte
    /// offsets into its private pool.
    fn private_pointers_pooled(&self) -> bool {
        self.ppool.as_ref().is_some_and(|p| p.pointers)
    }

    /// Stores an initializer into `place`; returns the pointer base when a
    /// `__local`/`__private` pointer was stored.
    fn initialize(&mut self, place: Place, t: &Type, init: &'a Init) -> Option<Rc<LBase>> {
        match init {
            Init::Expr(e) => {
                if let (Type::Array(elem, n), ExprKind::StrLit(bytes)) = (t, &e.kind) {
                    for i in 0..(*n as usize).min(bytes.len() + 1) {
                        let b = bytes.get(i).copied().unwrap_or(0) as i64;
                        let v = self.const_val(elem, b);
                        let p = self.index_place(place.clone(), i as u32);
                        self.store(&p, &v, e.span);
                    }
                    return None;
                }
                let v = self.expr(e)?;
                let v = self.convert(v, t, e.span, false)?;
                self.store(&place, &v, e.span);
                v.base
            }
            Init::List(items, span) => {
                match t {
                    Type::Array(elem, n) => {
                        if items.len() > *n as usize {
                            self.error(*span, "excess elements in array initializer");
                        }
                        for (i, it) in items.iter().enumerate().take(*n as usize) {
                            let p = self.index_place(place.clone(), i as u32);
                            self.initialize(p, elem, it);
                        }
                    }
                    Type::Struct(id) => {
                        let def = &self.types.structs[*id];
                        // A union's initializer list sets its first member.
                        let take = if def.is_union { 1 } else { def.members.len() };
                        let members: Vec<Type> = def
                            .members
                            .iter()
                            .take(take)
                            .map(|m| m.ty.clone())
                            .collect();
                        if items.len() > members.len() {
                            self.error(*span, "excess elements in struct initializer");
                        }
                        for (i, (it, mt)) in items.iter().zip(&members).enumerate() {
                            let p = self.member_place(place.clone(), i as u32, mt.clone());
                            self.initialize(p, mt, it);
                        }
                    }
                    Type::Vector(s, n) => {
                        if items.len() > *n as usize {
                            self.error(*span, "excess elements in vector initializer");
                        }
                        let elem = Type::Scalar(*s);
                        for (i, it) in items.iter().enumerate().take(*n as usize) {
                            let p = Place::Swizzle {
                                base: Box::new(place.clone()),
                                comps: vec![i as u32],
                                ty: elem.clone(),
                            };
                            self.initialize(p, &elem, it);
                        }
                    }
                    // `{}` (also a member a designated list leaves out)
                    // keeps the zero already stored.
                    _ => {
                        if let Some(first) = items.first() {
                            return self.initialize(place, t, first);
                        }
                    }
                }
                None
            }
        }
    }

    fn index_place(&mut self, place: Place, i: u32) -> Place {
        let c = self.u32c(i);
        let elem = match place.ty() {
            Type::Array(e, _) => (**e).clone(),
            t => t.clone(),
        };
        match place {
            Place::Var {
                root,
                sc,
                mut path,
                mut dynamic,
                ..
            } => {
                path.push(c);
                dynamic.push(false);
                Place::Var {
                    root,
                    sc,
                    path,
                    dynamic,
                    in_array: true,
                    ty: elem,
                }
            }
            Place::Pool { offset, sc, .. } => {
                let size = self.types.size(&elem);
                let o = self.pool_offset_plus(offset, size * i);
                Place::Pool {
                    offset: o,
                    ty: elem,
                    sc,
                }
            }
            Place::Addr { addr, space, .. } => {
                let size = self.types.size(&elem) as u64;
                let u64t = self.m.ty(TypeKey::Int(64));
                let off = self.m.u64_const(size * i as u64);
                let a = self.op(Op::IAdd, u64t, &[addr, off]);
                let align = self.types.align(&elem);
                Place::Addr {
                    addr: a,
                    ty: elem,
                    align,
                    space,
                }
            }
            p => p,
        }
    }

    fn member_place(&mut self, place: Place, index: u32, mty: Type) -> Place {
        match place {
            Place::Var {
                root,
                sc,
                mut path,
                mut dynamic,
                ..
            } => {
                let c = self.u32c(index);
                path.push(c);
                dynamic.push(false);
                Place::Var {
                    root,
                    sc,
                    path,
                    dynamic,
                    in_array: false,
                    ty: mty,
                }
            }
            Place::Pool { offset, ty, sc } => {
                let Type::Struct(id) = ty else {
                    return Place::Pool { offset, ty, sc };
                };
                let off = self.types.structs[id].members[index as usize].offset;
                let o = self.pool_offset_plus(offset, off);
                Place::Pool {
                    offset: o,
                    ty: mty,
                    sc,
                }
            }
            Place::Addr {
                addr,
                ty,
                space,
                align,
            } => {
                let Type::Struct(id) = ty else {
                    return Place::Addr {
                        addr,
                        ty,
                        space,
                        align,
                    };
                };
                let off = self.types.structs[id].members[index as usize].offset;
                let u64t = self.m.ty(TypeKey::Int(64));
                let o = self.m.u64_const(off as u64);
                let a = self.op(Op::IAdd, u64t, &[addr, o]);
                let malign = self.types.align(&mty).min(align.max(1)).max(1);
                let malign = if off.is_multiple_of(malign) {
                    malign
                } else {
                    1
                };
                Place::Addr {
                    addr: a,
                    ty: mty,
                    align: malign,
                    space,
                }
            }
            p => p,
        }
    }

    // ---- memory ----------------------------------------------------------------

    fn var_pointer(&mut self, root: Word, sc: StorageClass, path: &[Word], ty: &Type) -> Word {
        if path.is_empty() {
            return root;
        }
        let p = self.ptr_ty(sc, ty);
        self.op(Op::AccessChain, p, Operands::new(&[root], path).words())
    }

    fn mem_operands(sc: StorageClass) -> &'static [Word] {
        if sc == StorageClass::Workgroup {
            &[MA_NON_PRIVATE]
        } else {
            &[]
        }
    }

    fn load(&mut self, place: &Place, span: Span) -> R<Val> {
        match place {
            Place::Var {
                root, sc, path, ty, ..
            } => {
                let stored = self.stored_type(*root, ty);
                let p = self.var_pointer(*root, *sc, path, &stored);
                let t = self.sty(&stored);
                let args = Operands::new(&[p], Self::mem_operands(*sc));
                let id = self.op(Op::Load, t, args.words());
                let id = self.stored_bits_as_value(id, ty, &stored, span)?;
                if path.is_empty() {
                    self.note_pointer_load(*root, id, ty);
                }
                Some(Val::new(id, ty.clone()))
            }
            Place::Pool { offset, ty, sc } => {
                let id = self.pool_load(*sc, *offset, ty, span)?;
                Some(Val::new(id, ty.clone()))
            }
            Place::Addr {
                addr,
                ty,
                align,
                space,
            } => {
                let id = if *space == AddrSpace::Private {
                    self.generic_load(*addr, ty, *align, span)?
                } else {
                    self.load_addr(*addr, ty, *align, span)?
                };
                Some(Val::new(id, ty.clone()))
            }
            Place::Swizzle { base, comps, ty } => {
                let b = self.load(base, span)?;
                Some(self.swizzle_value(&b, comps, ty))
            }
        }
    }

    fn load_addr(&mut self, addr: Word, ty: &Type, align: u32, span: Span) -> R<Word> {
        if let Some(repr) = self.union_repr(ty) {
            return self.load_addr(addr, &repr, align, span);
        }
        match ty {
            Type::Scalar(Scalar::Bool) => {
                let u8v = self.load_addr(addr, &Type::Scalar(Scalar::UChar), 1, span)?;
                let zero = self.constant(&Type::Scalar(Scalar::UChar), ConstVal::Int(0));
                let b = self.bool_ty(1);
                Some(self.op(Op::INotEqual, b, &[u8v, zero]))
            }
            // 8- and 16-vectors are arrays in SPIR-V; they move as
            // 4-component vectors (a physical pointer needs only its
            // scalar's alignment), so that a GPU issues 128-bit loads where
            // the address allows, and a `vload16` is four loads, not 16.
            Type::Vector(s, n) if *n > 4 && align >= s.size() => {
                let chunk = 4 * s.size();
                let calign = align.min(chunk);
                let ct = Type::Vector(*s, 4);
                let et = self.sty(&Type::Scalar(*s));
                let u64t = self.m.ty(TypeKey::Int(64));
                let mut parts = Vec::new();
                for c in 0..*n as u64 / 4 {
                    let o = self.m.u64_const(c * chunk as u64);
                    let a = self.op(Op::IAdd, u64t, &[addr, o]);
                    let v = self.load_addr(a, &ct, calign, span)?;
                    for k in 0..4 {
                        parts.push(self.op(Op::CompositeExtract, et, &[v, k]));
                    }
                }
                let t = self.sty(ty);
                Some(self.op(Op::CompositeConstruct, t, &parts))
            }
            Type::Vector(s, n) if *n > 4 => {
                let st = Type::Scalar(*s);
                let u64t = self.m.ty(TypeKey::Int(64));
                let mut parts = Vec::new();
                for i in 0..*n as u64 {
                    let o = self.m.u64_const(i * s.size() as u64);
                    let a = self.op(Op::IAdd, u64t, &[addr, o]);
                    let calign = if i == 0 {
                        align.max(1)
                    } else {
                        s.size().min(align.max(1))
                    };
                    parts.push(self.load_addr(a, &st, calign, span)?);
                }
                let t = self.sty(ty);
                Some(self.op(Op::CompositeConstruct, t, &parts))
            }
            Type::Scalar(_) | Type::Vector(..) | Type::Pointer(..) => {
                self.storage_caps(ty);
                let t = self.sty(ty);
                let p = self
                    .m
                    .ty(TypeKey::Pointer(StorageClass::PhysicalStorageBuffer, t));
                let ptr = self.op(Op::ConvertUToPtr, p, &[addr]);
                Some(self.op(
                    Op::Load,
                    t,
                    &[ptr, MA_ALIGNED | MA_NON_PRIVATE, align.max(1)],
                ))
            }
            Type::Array(e, n) => {
                let esize = self.types.size(e) as u64;
                let ealign = self.types.align(e).min(align).max(1);
                let mut parts = Vec::new();
                let u64t = self.m.ty(TypeKey::Int(64));
                for i in 0..*n as u64 {
                    let o = self.m.u64_const(i * esize);
                    let a = self.op(Op::IAdd, u64t, &[addr, o]);
                    parts.push(self.load_addr(a, e, ealign, span)?);
                }
                let t = self.sty(ty);
                Some(self.op(Op::CompositeConstruct, t, &parts))
            }
            Type::Struct(id) => {
                let members: Vec<(Type, u32)> = self.types.structs[*id]
                    .members
                    .iter()
                    .map(|m| (m.ty.clone(), m.offset))
                    .collect();
                let u64t = self.m.ty(TypeKey::Int(64));
                let mut parts = Vec::new();
                for (mt, off) in members {
                    let o = self.m.u64_const(off as u64);
                    let a = self.op(Op::IAdd, u64t, &[addr, o]);
                    let malign = self.types.align(&mt).min(align).max(1);
                    let malign = if off.is_multiple_of(malign) {
                        malign
                    } else {
                        1
                    };
                    parts.push(self.load_addr(a, &mt, malign, span)?);
                }
                let t = self.sty(ty);
                Some(self.op(Op::CompositeConstruct, t, &parts))
            }
            _ => {
                self.error(span, "cannot load a value of this type");
                None
            }
        }
    }

    fn store_addr(&mut self, addr: Word, ty: &Type, align: u32, val: Word, span: Span) {
        if let Some(repr) = self.union_repr(ty) {
            return self.store_addr(addr, &repr, align, val, span);
        }
        match ty {
            Type::Scalar(Scalar::Bool) => {
                let uc = Type::Scalar(Scalar::UChar);
                let one = self.constant(&uc, ConstVal::Int(1));
                let zero = self.constant(&uc, ConstVal::Int(0));
                let t = self.sty(&uc);
                let v = self.op(Op::Select, t, &[val, one, zero]);
                self.store_addr(addr, &uc, 1, v, span);
            }
            // As in `load_addr`: 4-component pieces.
            Type::Vector(s, n) if *n > 4 && align >= s.size() => {
                let chunk = 4 * s.size();
                let calign = align.min(chunk);
                let ct = Type::Vector(*s, 4);
                let cty = self.sty(&ct);
                let et = self.sty(&Type::Scalar(*s));
                let u64t = self.m.ty(TypeKey::Int(64));
                for c in 0..*n as u32 / 4 {
                    let comps: Vec<Word> = (0..4)
                        .map(|k| self.op(Op::CompositeExtract, et, &[val, c * 4 + k]))
                        .collect();
                    let v = self.op(Op::CompositeConstruct, cty, &comps);
                    let o = self.m.u64_const(u64::from(c) * u64::from(chunk));
                    let a = self.op(Op::IAdd, u64t, &[addr, o]);
                    self.store_addr(a, &ct, calign, v, span);
                }
            }
            Type::Vector(s, n) if *n > 4 => {
                let st = Type::Scalar(*s);
                let et = self.sty(&st);
                let u64t = self.m.ty(TypeKey::Int(64));
                for i in 0..*n as u32 {
                    let o = self.m.u64_const(i as u64 * s.size() as u64);
                    let a = self.op(Op::IAdd, u64t, &[addr, o]);
                    let part = self.op(Op::CompositeExtract, et, &[val, i]);
                    let calign = if i == 0 {
                        align.max(1)
                    } else {
                        s.size().min(align.max(1))
                    };
                    self.store_addr(a, &st, calign, part, span);
                }
            }
            Type::Scalar(_) | Type::Vector(..) | Type::Pointer(..) => {
                self.storage_caps(ty);
                let t = self.sty(ty);
                let p = self
                    .m
                    .ty(TypeKey::Pointer(StorageClass::PhysicalStorageBuffer, t));
                let ptr = self.op(Op::ConvertUToPtr, p, &[addr]);
                self.op_void(
                    Op::Store,
                    &[ptr, val, MA_ALIGNED | MA_NON_PRIVATE, align.max(1)],
                );
            }
            Type::Array(e, n) => {
                let esize = self.types.size(e) as u64;
                let ealign = self.types.align(e).min(align).max(1);
                let u64t = self.m.ty(TypeKey::Int(64));
                let et = self.sty(e);
                for i in 0..*n {
                    let o = self.m.u64_const(i as u64 * esize);
                    let a = self.op(Op::IAdd, u64t, &[addr, o]);
                    let part = self.op(Op::CompositeExtract, et, &[val, i]);
                    self.store_addr(a, e, ealign, part, span);
                }
            }
            Type::Struct(id) => {
                let members: Vec<(Type, u32)> = self.types.structs[*id]
                    .members
                    .iter()
                    .map(|m| (m.ty.clone(), m.offset))
                    .collect();
                let u64t = self.m.ty(TypeKey::Int(64));
                for (i, (mt, off)) in members.into_iter().enumerate() {
                    let o = self.m.u64_const(off as u64);
                    let a = self.op(Op::IAdd, u64t, &[addr, o]);
                    let mty = self.sty(&mt);
                    let part = self.op(Op::CompositeExtract, mty, &[val, i as u32]);
                    let malign = self.types.align(&mt).min(align).max(1);
                    let malign = if off.is_multiple_of(malign) {
                        malign
                    } else {
                        1
                    };
                    self.store_addr(a, &mt, malign, part, span);
                }
            }
            _ => self.error(span, "cannot store a value of this type"),
        }
    }

    /// 8- and 16-bit values in buffers need their storage capabilities.
    fn storage_caps(&mut self, ty: &Type) {
        match ty.elem_scalar().map(|s| s.size()) {
            Some(1) => self.m.capability(Capability::StorageBuffer8BitAccess),
            Some(2) => self.m.capability(Capability::StorageBuffer16BitAccess),
            _ => {}
        }
    }

    fn store(&mut self, place: &Place, v: &Val, span: Span) {
        match place {
            Place::Var {
                root, sc, path, ty, ..
            } => {
                if *sc == StorageClass::Private {
                    self.error(span, "cannot assign to a __constant variable");
                    return;
                }
                let stored = self.stored_type(*root, ty);
                let p = self.var_pointer(*root, *sc, path, &stored);
                let Some(value) = self.value_as_stored_bits(v.id, ty, &stored, span) else {
                    return;
                };
                let args = Operands::new(&[p, value], Self::mem_operands(*sc));
                self.op_void(Op::Store, args.words());
                if path.is_empty() {
                    self.note_pointer_store(*root, v);
                }
            }
            Place::Addr {
                addr,
                ty,
                align,
                space,
            } => {
                if *space == AddrSpace::Constant {
                    self.error(span, "cannot assign to __constant memory");
                    return;
                }
                if *space == AddrSpace::Private {
                    self.generic_store(*addr, ty, *align, v.id, span);
                    return;
                }
                self.store_addr(*addr, ty, *align, v.id, span);
            }
            Place::Pool { offset, ty, sc } => self.pool_store(*sc, *offset, ty, v.id, span),
            Place::Swizzle { base, comps, .. } => {
                // Each named component is stored alone: other work-items
                // may be writing the vector's other components.
                let Some(s) = base.ty().elem_scalar() else {
                    return;
                };
                let st = Type::Scalar(s);
                let et = self.sty(&st);
                let width = base.ty().width();
                for (j, &c) in comps.iter().enumerate() {
                    // The undefined `w` of a 3-vector's `.hi`/`.odd`.
                    if c >= width {
                        continue;
                    }
                    let part = if comps.len() == 1 {
                        v.id
                    } else {
                        self.op(Op::CompositeExtract, et, &[v.id, j as u32])
                    };
                    let place = self.component_place((**base).clone(), c);
                    self.store(&place, &Val::new(part, st.clone()), span);
                }
            }
        }
    }

    /// Component `c` of a vector place.
    fn component_place(&mut self, base: Place, c: u32) -> Place {
        let s = base.ty().elem_scalar().unwrap_or(Scalar::Int);
        let st = Type::Scalar(s);
        match base {
            Place::Var {
                root,
                sc,
                mut path,
                mut dynamic,
                ..
            } => {
                let idx = self.u32c(c);
                path.push(idx);
                dynamic.push(false);
                Place::Var {
                    root,
                    sc,
                    path,
                    dynamic,
                    in_array: false,
                    ty: st,
                }
            }
            Place::Addr {
                addr, space, align, ..
            } => {
                let u64t = self.m.ty(TypeKey::Int(64));
                let off = self.m.u64_const(c as u64 * s.size() as u64);
                let a = self.op(Op::IAdd, u64t, &[addr, off]);
                let calign = if c == 0 { align } else { s.size().min(align) };
                Place::Addr {
                    addr: a,
                    ty: st,
                    align: calign.max(1),
                    space,
                }
            }
            Place::Pool { offset, sc, .. } => {
                let o = self.pool_offset_plus(offset, c * s.size());
                Place::Pool {
                    offset: o,
                    ty: st,
                    sc,
                }
            }
            Place::Swizzle { base, comps, .. } => {
                let inner = comps.get(c as usize).copied().unwrap_or(0);
                self.component_place(*base, inner)
            }
        }
    }

    // ---- inlined calls ---------------------------------------------------------

    /// Type-checks a function no kernel calls, by inlining it into a
    /// scratch function of a scratch module, both then dropped.
    fn check_uncalled(&mut self, f: &'a FuncDef) {
        let module = std::mem::replace(&mut self.m, ModuleWriter::new());
        let wg_size = self.wg_size.take();
        let enqueued_size = self.enqueued_size.take();
        let wide_types = std::mem::take(&mut self.wide_types);
        let wide_vals = std::mem::take(&mut self.wide_vals);
        // Ids of the scratch module mean nothing in the real one.
        let int64_types = std::mem::take(&mut self.int64_types);
        let int64_vals = std::mem::take(&mut self.int64_vals);
        let builtins = std::mem::take(&mut self.k.builtins);
        // Functions emitted into the scratch module do not exist in the
        // real one.
        let image_functions = std::mem::take(&mut self.image_functions);
        let constant_tables = std::mem::take(&mut self.constant_tables);
        let root_types = std::mem::take(&mut self.root_types);
        // printf in the scratch function writes through a made-up argument.
        let printf = self.k.printf_offset.replace(0);
        let global_data = self.k.global_data_offset.replace(0);
        self.check_uncalled_in_scratch(f);
        self.k.printf_offset = printf;
        self.k.global_data_offset = global_data;
        self.m = module;
        self.wg_size = wg_size;
        self.enqueued_size = enqueued_size;
        self.wide_types = wide_types;
        self.wide_vals = wide_vals;
        self.int64_types = int64_types;
        self.int64_vals = int64_vals;
        self.k.builtins = builtins;
        self.image_functions = image_functions;
        self.constant_tables = constant_tables;
        self.root_types = root_types;
    }

    /// Opens the word pools the function `root` lowers with: a pool where
    /// it, or a function it calls, reinterprets that space's memory or
    /// keeps a union there (`PoolUse`), the private one of storage class
    /// `private_storage`. Deciding per kernel keeps a program's other
    /// kernels in typed variables, which drivers keep in registers:
    /// hashcat's headers define a union in `v8a_from_v32_S`, which few of
    /// its kernels call.
    fn open_pools(&mut self, root: &str, private_storage: StorageClass) {
        let reached = self.call_graph.reached(root);
        let most = |users: &HashMap<&str, PoolUse>| {
            reached.iter().filter_map(|g| users.get(g).copied()).max()
        };
        // Generic pointers in the tagged form point into pools.
        let dynamic = self.generic_dynamic.then_some(PoolUse::Pointers);
        let private = dynamic.or(most(&self.private_pool_users));
        let local = dynamic.or(most(&self.local_pool_users));
        self.ppool =
            private.map(|usage| self.private_pool(private_storage, usage == PoolUse::Pointers));
        self.pool = local.map(|_| {
            let zero = self.u32c(0);
            LocalPool::new(self.m.id(), zero, StorageClass::Workgroup, true)
        });
    }

    fn check_uncalled_in_scratch(&mut self, f: &'a FuncDef) {
        let entry = self.label();
        self.f = FunctionWriter::new(entry);
        self.scopes = vec![HashMap::default()];
        self.breakables.clear();
        self.jumps.clear();
        self.frames.clear();
        self.call_stack.clear();
        // The pools a kernel would give the function, so that what needs
        // them (unions in private or local memory) checks as in a called
        // function; the scratch module is discarded.
        self.split_pools = false;
        self.open_pools(f.name.as_str(), StorageClass::Function);
        self.outlined.clear();
        self.const_vars.clear();
        self.constant_locals.clear();
        self.generic_vars.clear();
        let mut args = Vec::new();
        for p in &f.params {
            let ty = self.sty(&p.ty);
            let id = self.op(Op::Undef, ty, &[]);
            // Where the space has a pool its pointers are offsets, and an
            // undefined one serves.
            let base = match &p.ty {
                Type::Pointer(elem, sp, _)
                    if !sp.is_addressed()
                        && **elem != Type::Void
                        && self.pool_of(*sp).is_none() =>
                {
                    let arr = Type::Array(elem.clone(), 1);
                    let var = self.new_function_var(&arr);
                    // Any object of the pointee type serves for checking.
                    Some(Rc::new(LBase {
                        root: var,
                        sc: StorageClass::Function,
                        path: Vec::new(),
                        saved: Vec::new(),
                        elem: (**elem).clone(),
                        is_array: true,
                    }))
                }
                _ => None,
            };
            args.push(Val {
                id,
                ty: p.ty.clone(),
                base,
            });
        }
        self.call_function(f, args, f.span);
        self.f = FunctionWriter::new(0);
    }

    /// A `const` parameter passed by value is a read-only variable (C99
    /// 6.7.3); for a pointer, `qual` describes the pointee instead.
    fn mark_const_parameter(&mut self, p: &Param, sym: &Sym) {
        if p.qual & crate::sema::types::qual::CONST != 0 && !p.ty.is_pointer() {
            self.const_vars.insert((sym.root, sym.pool));
        }
    }

    /// Calls `f`: inlined, or a call of the kernel's SPIR-V function for
    /// it where the kernel outlines it (see [`outline`]).
    fn call_function(&mut self, f: &'a FuncDef, args: Vec<Val>, span: Span) -> R<Val> {
        let name = f.name.as_str();
        if self.outlined.contains_key(name) && !self.call_stack.contains(&name) {
            if let Some(params) = self.outlined_params(f, &args) {
                self.called.insert(name);
                return self.call_outlined(f, params, args, span);
            }
        }
        self.call_function_inline(f, args, span)
    }

    fn call_function_inline(&mut self, f: &'a FuncDef, args: Vec<Val>, span: Span) -> R<Val> {
        self.called.insert(f.name.as_str());
        let library = f.name.starts_with("__ferrocl_");
        self.in_library += library as usize;
        let result = self.inline_call(f, args, span);
        self.in_library -= library as usize;
        result
    }

    /// The type parameter `p` takes for argument `a`: a pointer parameter
    /// without an address space takes the argument's, as a generic
    /// pointer would.
    fn bound_param_type(&self, p: &Param, a: &Val) -> Type {
        let into_constant_data = a
            .base
            .as_ref()
            .is_some_and(|b| b.sc == StorageClass::Private);
        match (&p.ty, &a.ty) {
            (Type::Pointer(elem, _, q), _) if into_constant_data => {
                Type::Pointer(elem.clone(), AddrSpace::Private, *q)
            }
            (Type::Pointer(elem, AddrSpace::Private, q), Type::Pointer(_, sp, _))
                if *sp != AddrSpace::Private && !self.generic_dynamic =>
            {
                Type::Pointer(elem.clone(), *sp, *q)
            }
            _ => p.ty.clone(),
        }
    }

    fn inline_call(&mut self, f: &'a FuncDef, args: Vec<Val>, span: Span) -> R<Val> {
        if self.call_stack.contains(&f.name.as_str()) {
            self.error(
                span,
                format!(
                    "recursive call to '{}': OpenCL C does not allow recursion",
                    f.name
                ),
            );
            return None;
        }
        let Some(body) = &f.body else {
            // A compiled object may call what another unit of the link
            // defines; its module is never run, so the result is undefined.
            if self.object {
                if f.ret == Type::Void {
                    return Some(Val::new(0, Type::Void));
                }
                let t = self.sty(&f.ret);
                let id = self.op(Op::Undef, t, &[]);
                return Some(Val::new(id, f.ret.clone()));
            }
            self.error(
                span,
                format!("function '{}' is declared but never defined", f.name),
            );
            return None;
        };
        if args.len() != f.params.len() {
            self.error(
                span,
                format!(
                    "'{}' takes {} argument{}, {} given",
                    f.name,
                    f.params.len(),
                    if f.params.len() == 1 { "" } else { "s" },
                    args.len()
                ),
            );
            return None;
        }
        // The parameters and variables of the call live until it returns.
        let mark = self.private_top();
        let mut bound = Vec::new();
        for (p, a) in f.params.iter().zip(args) {
            let ty = self.bound_param_type(p, &a);
            let v = self.convert(a, &ty, span, false)?;
            bound.push((p, ty, v));
        }
        let saved_scopes = std::mem::replace(&mut self.scopes, vec![HashMap::default()]);
        for (p, ty, v) in bound {
            let mut sym = self.private_of(Some(f.name.as_str()), &p.name, &ty);
            let place = Self::sym_place(&sym);
            self.store(&place, &v, p.span);
            sym.base = v.base.clone();
            self.mark_const_parameter(p, &sym);
            self.bind(&p.name, sym);
        }
        let generic_ret = self.cl_version >= 200
            && !self.generic_dynamic
            && matches!(f.ret, Type::Pointer(_, AddrSpace::Private, _));
        let ret_var = if f.ret == Type::Void || generic_ret {
            None
        } else {
            Some(self.new_function_var(&f.ret))
        };
        let early = has_early_return(body);
        let exit = self.label();
        let flag = if early {
            let b = Type::BOOL;
            let flag = self.new_function_var(&b);
            let fls = self.m.constant(ConstKey::False);
            self.op_void(Op::Store, &[flag, fls]);
            Some(flag)
        } else {
            None
        };
        self.frames.push(Frame {
            ret_ty: f.ret.clone(),
            ret_var,
            generic_ret,
            ret_base: None,
            flag,
            exit,
            breakables_at_entry: self.breakables.len(),
        });
        self.call_stack.push(f.name.as_str());
        if early {
            let (header, body_l, cont) = (self.label(), self.label(), self.label());
            self.begin(header);
            self.op_void(Op::LoopMerge, &[exit, cont, 0]);
            self.branch(body_l);
            self.f.begin(body_l);
            self.stmt(body);
            if self.f.is_open() {
                self.branch(exit);
            }
            self.f.begin(cont);
            self.term(Op::Branch, &[header]);
            self.f.begin(exit);
        } else {
            self.stmt(body);
        }
        self.call_stack.pop();
        self.release_private(mark);
        let frame = self.frames.pop()?;
        self.scopes = saved_scopes;
        match frame.ret_var {
            Some(var) => {
                let t = self.sty(&frame.ret_ty);
                let id = self.op(Op::Load, t, &[var]);
                self.note_pointer_load(var, id, &frame.ret_ty);
                Some(Val {
                    id,
                    ty: frame.ret_ty,
                    base: frame.ret_base,
                })
            }
            None if generic_ret => {
                self.error(span, format!("'{}' returns no pointer on any path", f.name));
                None
            }
            None => Some(Val::new(0, Type::Void)),
        }
    }
}

/// Enters a function declaration or definition of the source into the
/// table calls resolve through. C99 6.7: any number of compatible
/// prototypes, at most one definition; the definition replaces a prototype
/// so that calls written before it reach its body.
fn declare_function<'a>(
    funcs: &mut HashMap<&'a str, &'a FuncDef>,
    f: &'a FuncDef,
    diags: &mut Diagnostics,
) {
    let Some(prev) = funcs.get(f.name.as_str()).copied() else {
        // A prototype of a built-in (`float sin(float);`) must not hide it.
        if f.body.is_some() || crate::sema::builtins::lookup(&f.name).is_none() {
            funcs.insert(f.name.as_str(), f);
        }
        return;
    };
    let compatible = prev.ret == f.ret
        && prev.is_kernel == f.is_kernel
        && prev.params.len() == f.params.len()
        && prev.params.iter().zip(&f.params).all(|(a, b)| a.ty == b.ty);
    if !compatible {
        diags.error(f.span, format!("conflicting types for '{}'", f.name));
        return;
    }
    match (prev.body.is_some(), f.body.is_some()) {
        (true, true) => diags.error(f.span, format!("redefinition of '{}'", f.name)),
        (false, true) => {
            funcs.insert(f.name.as_str(), f);
        }
        _ => {}
    }
}

/// Does `f` convert anything to a `__local` pointer type? Then the
/// program's kernels put `__local` memory in the word pool, where any
/// access type works.
fn reinterprets(f: &FuncDef, space: AddrSpace) -> bool {
    fn expr(e: &Expr, sp: AddrSpace) -> bool {
        match &e.kind {
            ExprKind::Cast(Type::Pointer(_, s, _), _) if *s == sp => true,
            ExprKind::CompoundLit(_, i) => init(i, sp),
            _ => e.any_operand(|a| expr(a, sp)),
        }
    }
    fn init(i: &Init, sp: AddrSpace) -> bool {
        match i {
            Init::Expr(e) => expr(e, sp),
            Init::List(items, _) => items.iter().any(|i| init(i, sp)),
        }
    }
    fn stmt(s: &Stmt, sp: AddrSpace) -> bool {
        let e = |x: &Expr| expr(x, sp);
        let st = |x: &Stmt| stmt(x, sp);
        match &s.kind {
            StmtKind::Expr(x) => e(x),
            StmtKind::Decl(vars) => vars
                .iter()
                .any(|v| v.init.as_ref().is_some_and(|i| init(i, sp))),
            StmtKind::Block(items) => items.iter().any(st),
            StmtKind::If(c, a, b) => e(c) || st(a) || b.as_deref().is_some_and(st),
            StmtKind::While(c, b) | StmtKind::DoWhile(b, c) | StmtKind::Switch(c, b) => {
                e(c) || st(b)
            }
            StmtKind::For(i, c, step, b) => {
                i.as_deref().is_some_and(st)
                    || c.as_ref().is_some_and(e)
                    || step.as_ref().is_some_and(e)
                    || st(b)
            }
            StmtKind::Return(x) => x.as_ref().is_some_and(e),
            StmtKind::Case(_, b) | StmtKind::Label(_, b) => st(b),
            _ => false,
        }
    }
    f.body.as_ref().is_some_and(|b| stmt(b, space))
}

/// The functions of `tu` that need a word pool for memory of `space`, and
/// what for: a kernel that reaches one of them lowers that space to a
/// pool (`Lowerer::pool_modes`).
fn pool_users(tu: &TranslationUnit, space: AddrSpace) -> HashMap<&str, PoolUse> {
    tu.funcs
        .iter()
        .filter_map(|f| {
            let (unions, union_pointers) = declares_union(f, &tu.types, space);
            let pointers = reinterprets(f, space)
                || union_pointers
                || (unions && addressed::addresses_a_union(f, &tu.types));
            let usage = if pointers {
                PoolUse::Pointers
            } else if unions {
                PoolUse::Unions
            } else {
                return None;
            };
            Some((f.name.as_str(), usage))
        })
        .collect()
}

/// Whether `f` declares a parameter or variable of `space` that holds a
/// union, and one whose union-holding type also holds a pointer.
fn declares_union(f: &FuncDef, types: &TypeTable, space: AddrSpace) -> (bool, bool) {
    fn stmt<'f>(s: &'f Stmt, space: AddrSpace, out: &mut Vec<&'f Type>) {
        match &s.kind {
            StmtKind::Decl(vars) => {
                out.extend(vars.iter().filter(|v| v.space == space).map(|v| &v.ty));
            }
            StmtKind::Block(items) => items.iter().for_each(|x| stmt(x, space, out)),
            StmtKind::If(_, a, b) => {
                stmt(a, space, out);
                if let Some(b) = b {
                    stmt(b, space, out);
                }
            }
            StmtKind::While(_, b)
            | StmtKind::DoWhile(b, _)
            | StmtKind::Switch(_, b)
            | StmtKind::Case(_, b)
            | StmtKind::Label(_, b) => stmt(b, space, out),
            StmtKind::For(i, _, _, b) => {
                if let Some(i) = i {
                    stmt(i, space, out);
                }
                stmt(b, space, out);
            }
            _ => {}
        }
    }
    let mut declared = Vec::new();
    if space == AddrSpace::Private {
        declared.extend(f.params.iter().map(|p| &p.ty));
    }
    if let Some(b) = &f.body {
        stmt(b, space, &mut declared);
    }
    let unions: Vec<&Type> = declared
        .into_iter()
        .filter(|t| types.contains_union(t))
        .collect();
    let with_pointer = unions.iter().any(|t| types.contains_pointer(t));
    (!unions.is_empty(), with_pointer)
}

/// Instructions that act on each vector component independently.
fn is_componentwise(op: Op) -> bool {
    use Op::*;
    matches!(
        op,
        IAdd | FAdd
            | ISub
            | FSub
            | IMul
            | FMul
            | UDiv
            | SDiv
            | FDiv
            | UMod
            | SRem
            | SMod
            | FRem
            | FMod
            | SNegate
            | FNegate
            | Not
            | BitwiseAnd
            | BitwiseOr
            | BitwiseXor
            | ShiftLeftLogical
            | ShiftRightLogical
            | ShiftRightArithmetic
            | SConvert
            | UConvert
            | FConvert
            | ConvertFToS
            | ConvertFToU
            | ConvertSToF
            | ConvertUToF
            | Bitcast
            | IEqual
            | INotEqual
            | SLessThan
            | SGreaterThan
            | SLessThanEqual
            | SGreaterThanEqual
            | ULessThan
            | UGreaterThan
            | ULessThanEqual
            | UGreaterThanEqual
            | FOrdEqual
            | FUnordNotEqual
            | FOrdNotEqual
            | FOrdLessThan
            | FOrdGreaterThan
            | FOrdLessThanEqual
            | FOrdGreaterThanEqual
            | IsNan
            | IsInf
            | LogicalAnd
            | LogicalOr
            | LogicalNot
            | LogicalEqual
            | LogicalNotEqual
            | Select
            | ExtInst
            | BitCount
            | BitReverse
    )
}

/// Does `f`, or a function it calls, call printf?
fn calls_printf<'a>(
    f: &'a FuncDef,
    funcs: &HashMap<&'a str, &'a FuncDef>,
    seen: &mut Vec<&'a str>,
) -> bool {
    fn expr<'a>(
        e: &'a Expr,
        funcs: &HashMap<&'a str, &'a FuncDef>,
        seen: &mut Vec<&'a str>,
    ) -> bool {
        match &e.kind {
            ExprKind::Call(name, _) => {
                name == "printf"
                    || e.any_operand(|a| expr(a, funcs, seen))
                    || funcs.get(name.as_str()).is_some_and(|g| {
                        !seen.contains(&name.as_str()) && calls_printf(g, funcs, seen)
                    })
            }
            ExprKind::CompoundLit(_, i) => init(i, funcs, seen),
            _ => e.any_operand(|a| expr(a, funcs, seen)),
        }
    }
    fn init<'a>(
        i: &'a Init,
        funcs: &HashMap<&'a str, &'a FuncDef>,
        seen: &mut Vec<&'a str>,
    ) -> bool {
        match i {
            Init::Expr(e) => expr(e, funcs, seen),
            Init::List(items, _) => items.iter().any(|i| init(i, funcs, seen)),
        }
    }
    fn stmt<'a>(
        s: &'a Stmt,
        funcs: &HashMap<&'a str, &'a FuncDef>,
        seen: &mut Vec<&'a str>,
    ) -> bool {
        match &s.kind {
            StmtKind::Expr(x) => expr(x, funcs, seen),
            StmtKind::Decl(vars) => vars
                .iter()
                .any(|v| v.init.as_ref().is_some_and(|i| init(i, funcs, seen))),
            StmtKind::Block(items) => items.iter().any(|x| stmt(x, funcs, seen)),
            StmtKind::If(c, a, b) => {
                expr(c, funcs, seen)
                    || stmt(a, funcs, seen)
                    || b.as_deref().is_some_and(|x| stmt(x, funcs, seen))
            }
            StmtKind::While(c, b) | StmtKind::DoWhile(b, c) | StmtKind::Switch(c, b) => {
                expr(c, funcs, seen) || stmt(b, funcs, seen)
            }
            StmtKind::For(i, c, st, b) => {
                i.as_deref().is_some_and(|x| stmt(x, funcs, seen))
                    || c.as_ref().is_some_and(|x| expr(x, funcs, seen))
                    || st.as_ref().is_some_and(|x| expr(x, funcs, seen))
                    || stmt(b, funcs, seen)
            }
            StmtKind::Return(x) => x.as_ref().is_some_and(|x| expr(x, funcs, seen)),
            StmtKind::Case(_, b) | StmtKind::Label(_, b) => stmt(b, funcs, seen),
            _ => false,
        }
    }
    seen.push(f.name.as_str());
    f.body.as_ref().is_some_and(|b| stmt(b, funcs, seen))
}

/// Do two pointer bases name the same array, possibly at other run-time
/// indices that `old` keeps in variables?
fn same_object(old: &LBase, new: &LBase) -> bool {
    old.root == new.root
        && old.sc == new.sc
        && old.elem == new.elem
        && old.is_array == new.is_array
        && old.path.len() == new.path.len()
        && (0..old.path.len())
            .all(|i| old.saved[i] || (!new.saved[i] && old.path[i] == new.path[i]))
}

/// The bytes of a scalar constant of type `s` (`out` is its size).
fn scalar_bytes(s: Scalar, v: ConstVal, out: &mut [u8]) {
    let bits: u64 = match s {
        Scalar::Float => (v.as_f64() as f32).to_bits() as u64,
        Scalar::Double => v.as_f64().to_bits(),
        Scalar::Half => f32_to_f16(v.as_f64() as f32) as u64,
        _ => consteval::wrap_to(v.as_i64(), s) as u64,
    };
    let n = out.len().min(8);
    out[..n].copy_from_slice(&bits.to_le_bytes()[..n]);
}

/// Does `s` contain `goto name`?
fn has_goto(s: &Stmt, name: &str) -> bool {
    match &s.kind {
        StmtKind::Goto(l) => l == name,
        StmtKind::Block(items) => items.iter().any(|x| has_goto(x, name)),
        StmtKind::If(_, a, b) => {
            has_goto(a, name) || b.as_deref().is_some_and(|x| has_goto(x, name))
        }
        StmtKind::While(_, b)
        | StmtKind::DoWhile(b, _)
        | StmtKind::Switch(_, b)
        | StmtKind::For(_, _, _, b)
        | StmtKind::Case(_, b)
        | StmtKind::Label(_, b) => has_goto(b, name),
        _ => false,
    }
}

/// Does `body` return anywhere but as its last top-level statement?
fn has_early_return(body: &Stmt) -> bool {
    fn any_return(s: &Stmt) -> bool {
        match &s.kind {
            StmtKind::Return(_) => true,
            StmtKind::Block(items) => items.iter().any(any_return),
            StmtKind::If(_, a, b) => any_return(a) || b.as_deref().is_some_and(any_return),
            StmtKind::While(_, b) | StmtKind::DoWhile(b, _) | StmtKind::Switch(_, b) => {
                any_return(b)
            }
            StmtKind::For(_, _, _, b) => any_return(b),
            StmtKind::Case(_, b) | StmtKind::Label(_, b) => any_return(b),
            _ => false,
        }
    }
    match &body.kind {
        StmtKind::Block(items) => match items.split_last() {
            Some((last, rest)) => {
                rest.iter().any(any_return)
                    || (!matches!(last.kind, StmtKind::Return(_)) && any_return(last))
            }
            None => false,
        },
        _ => any_return(body),
    }
}

/// IEEE binary32 → binary16 with round-to-nearest-even.
fn f32_to_f16(f: f32) -> u16 {
    let b = f.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xff) as i32;
    let man = b & 0x7f_ffff;
    if exp == 0xff {
        return sign | 0x7c00 | if man != 0 { 0x200 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    if e <= 0 {
        if e < -10 {
            return sign;
        }
        let m = man | 0x80_0000;
        let shift = (14 - e) as u32;
        let half = 1u32 << (shift - 1);
        let rest = m & ((1 << shift) - 1);
        let mut r = m >> shift;
        if rest > half || (rest == half && r & 1 == 1) {
            r += 1;
        }
        return sign | r as u16;
    }
    let mut r = ((e as u32) << 10) | (man >> 13);
    let rest = man & 0x1fff;
    if rest > 0x1000 || (rest == 0x1000 && r & 1 == 1) {
        r += 1;
    }
    sign | r as u16
}

impl<'a> Lowerer<'a> {
    /// Places a program-scope variable in the program's global variable
    /// buffer (aligned, with its initializer's bytes) and returns its byte
    /// offset; `what` names the variables in the size-limit error.
    pub(super) fn place_global_data(&mut self, g: &VarDecl, what: &str) -> Option<u32> {
        let (size, align) = self.types.size_align(&g.ty);
        // The initializer first: string literals it names are placed
        // before the variable.
        let mut bytes = vec![0u8; size as usize];
        self.init_relocations.clear();
        if let Some(init) = &g.init {
            if !self.init_bytes(&g.ty, init, &mut bytes, 0, g.span) {
                return None;
            }
        }
        let at = crate::sema::types::round_up(self.global_data.len() as u32, align.max(1));
        if at as usize + size as usize > MAX_VARIABLE_BYTES as usize {
            self.error(
                g.span,
                format!("{what} take more than the {MAX_VARIABLE_BYTES} bytes supported"),
            );
            return None;
        }
        self.last_placement_bytes = (at + size) as usize - self.global_data.len();
        let relocations = std::mem::take(&mut self.init_relocations);
        self.global_relocations
            .extend(relocations.into_iter().map(|r| at + r as u32));
        self.global_data.resize(at as usize, 0);
        self.global_data.extend_from_slice(&bytes);
        Some(at)
    }
}

/// The low `bits` bits of `v`: an integer constant of that width.
/// The low `bits` bits of `v` (1 to 64) as a signed value.
fn sign_extended(v: u64, bits: u32) -> i64 {
    let shift = 64 - bits.clamp(1, 64);
    ((v << shift) as i64) >> shift
}

fn low_bits(v: u64, bits: u32) -> u64 {
    if bits >= 64 {
        v
    } else {
        v & ((1u64 << bits) - 1)
    }
}
