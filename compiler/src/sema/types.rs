//! The OpenCL C type system: scalars, vectors of 2/3/4/8/16, pointers with
//! address spaces, arrays, structs and unions with C layout and OpenCL
//! alignment (a 3-vector takes the size and alignment of a 4-vector).

use std::fmt;

/// A scalar type. `size_t`, `ptrdiff_t`, `intptr_t` and `uintptr_t` are the
/// 64-bit integers (the device's address bits are 64).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scalar {
    Bool,
    Char,
    UChar,
    Short,
    UShort,
    Int,
    UInt,
    Long,
    ULong,
    Half,
    Float,
    Double,
}

impl Scalar {
    pub fn size(self) -> u32 {
        match self {
            Scalar::Bool | Scalar::Char | Scalar::UChar => 1,
            Scalar::Short | Scalar::UShort | Scalar::Half => 2,
            Scalar::Int | Scalar::UInt | Scalar::Float => 4,
            Scalar::Long | Scalar::ULong | Scalar::Double => 8,
        }
    }

    pub fn bits(self) -> u32 {
        self.size() * 8
    }

    pub fn is_float(self) -> bool {
        matches!(self, Scalar::Half | Scalar::Float | Scalar::Double)
    }

    /// Integer types, `bool` excluded.
    pub fn is_integer(self) -> bool {
        !self.is_float() && self != Scalar::Bool
    }

    pub fn is_signed(self) -> bool {
        matches!(
            self,
            Scalar::Char | Scalar::Short | Scalar::Int | Scalar::Long
        ) || self.is_float()
    }

    /// The integer type of `bits` bits and the given signedness.
    pub fn int(bits: u32, signed: bool) -> Scalar {
        match (bits, signed) {
            (8, true) => Scalar::Char,
            (8, false) => Scalar::UChar,
            (16, true) => Scalar::Short,
            (16, false) => Scalar::UShort,
            (32, true) => Scalar::Int,
            (32, false) => Scalar::UInt,
            (64, true) => Scalar::Long,
            _ => Scalar::ULong,
        }
    }

    pub fn float(bits: u32) -> Scalar {
        match bits {
            16 => Scalar::Half,
            32 => Scalar::Float,
            _ => Scalar::Double,
        }
    }

    /// The same-sized signed integer (the element of a vector relational
    /// result).
    pub fn signed_int_of_size(self) -> Scalar {
        Scalar::int(self.bits().max(8), true)
    }

    pub fn to_unsigned(self) -> Scalar {
        if self.is_integer() {
            Scalar::int(self.bits(), false)
        } else {
            self
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Scalar::Bool => "bool",
            Scalar::Char => "char",
            Scalar::UChar => "uchar",
            Scalar::Short => "short",
            Scalar::UShort => "ushort",
            Scalar::Int => "int",
            Scalar::UInt => "uint",
            Scalar::Long => "long",
            Scalar::ULong => "ulong",
            Scalar::Half => "half",
            Scalar::Float => "float",
            Scalar::Double => "double",
        }
    }

    /// The scalar named `name` (OpenCL spellings of unsigned types too).
    pub fn from_name(name: &str) -> Option<Scalar> {
        Some(match name {
            "bool" => Scalar::Bool,
            "char" => Scalar::Char,
            "uchar" => Scalar::UChar,
            "short" => Scalar::Short,
            "ushort" => Scalar::UShort,
            "int" => Scalar::Int,
            "uint" => Scalar::UInt,
            "long" => Scalar::Long,
            "ulong" => Scalar::ULong,
            "half" => Scalar::Half,
            "float" => Scalar::Float,
            "double" => Scalar::Double,
            "size_t" | "uintptr_t" => Scalar::ULong,
            "ptrdiff_t" | "intptr_t" => Scalar::Long,
            // The bit set `get_fence` returns and barriers take
            // (`CLK_GLOBAL_MEM_FENCE`, `CLK_LOCAL_MEM_FENCE`).
            "cl_mem_fence_flags" => Scalar::UInt,
            // OpenCL C 2.0 atomic types have the size and representation
            // of their value type; the atomic built-ins give them their
            // semantics. `atomic_flag` is an int holding 0 or 1, and the
            // `memory_order` / `memory_scope` enums are ints.
            "atomic_int" | "atomic_flag" | "memory_order" | "memory_scope" => Scalar::Int,
            "atomic_uint" => Scalar::UInt,
            "atomic_long" | "atomic_intptr_t" | "atomic_ptrdiff_t" => Scalar::Long,
            "atomic_ulong" | "atomic_uintptr_t" | "atomic_size_t" => Scalar::ULong,
            "atomic_float" => Scalar::Float,
            "atomic_double" => Scalar::Double,
            _ => return None,
        })
    }
}

/// An OpenCL address space.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AddrSpace {
    Private,
    Global,
    Constant,
    Local,
}

impl AddrSpace {
    pub fn keyword(self) -> &'static str {
        match self {
            AddrSpace::Private => "__private",
            AddrSpace::Global => "__global",
            AddrSpace::Constant => "__constant",
            AddrSpace::Local => "__local",
        }
    }

    /// Memory reached through a 64-bit device address.
    pub fn is_addressed(self) -> bool {
        matches!(self, AddrSpace::Global | AddrSpace::Constant)
    }
}

/// Type qualifier bits, as `CL_KERNEL_ARG_TYPE_*` numbers them.
pub mod qual {
    pub const CONST: u8 = 1;
    pub const RESTRICT: u8 = 2;
    pub const VOLATILE: u8 = 4;
}

pub type StructId = usize;

/// A type inside another (a pointee, an array's element): shared, so that
/// copying a type, which a build does millions of times, allocates
/// nothing.
pub type TypeRef = std::rc::Rc<Type>;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    Void,
    Scalar(Scalar),
    Vector(Scalar, u8),
    /// Pointee, the pointee's address space and qualifiers.
    Pointer(TypeRef, AddrSpace, u8),
    Array(TypeRef, u32),
    Struct(StructId),
    /// `sampler_t`, `image2d_t`, `event_t`: parsed, not yet lowered.
    Opaque(&'static str),
}

impl Type {
    pub const INT: Type = Type::Scalar(Scalar::Int);
    pub const UINT: Type = Type::Scalar(Scalar::UInt);
    pub const LONG: Type = Type::Scalar(Scalar::Long);
    pub const ULONG: Type = Type::Scalar(Scalar::ULong);
    pub const BOOL: Type = Type::Scalar(Scalar::Bool);
    pub const FLOAT: Type = Type::Scalar(Scalar::Float);

    pub fn scalar(&self) -> Option<Scalar> {
        match self {
            Type::Scalar(s) => Some(*s),
            _ => None,
        }
    }

    /// The element scalar of a scalar or vector.
    pub fn elem_scalar(&self) -> Option<Scalar> {
        match self {
            Type::Scalar(s) | Type::Vector(s, _) => Some(*s),
            _ => None,
        }
    }

    /// Number of components: 1 for a scalar.
    pub fn width(&self) -> u32 {
        match self {
            Type::Vector(_, n) => *n as u32,
            _ => 1,
        }
    }

    pub fn is_arith(&self) -> bool {
        matches!(self, Type::Scalar(_) | Type::Vector(..))
    }

    pub fn is_vector(&self) -> bool {
        matches!(self, Type::Vector(..))
    }

    pub fn is_pointer(&self) -> bool {
        matches!(self, Type::Pointer(..))
    }

    pub fn is_integer(&self) -> bool {
        self.elem_scalar()
            .is_some_and(|s| s.is_integer() || s == Scalar::Bool)
    }

    pub fn is_float(&self) -> bool {
        self.elem_scalar().is_some_and(|s| s.is_float())
    }

    /// Same shape (scalar or vector of the same width) with another element.
    pub fn with_elem(&self, s: Scalar) -> Type {
        match self {
            Type::Vector(_, n) => Type::Vector(s, *n),
            _ => Type::Scalar(s),
        }
    }

    pub fn vector_or_scalar(s: Scalar, n: u32) -> Type {
        if n == 1 {
            Type::Scalar(s)
        } else {
            Type::Vector(s, n as u8)
        }
    }

    pub fn pointee(&self) -> Option<&Type> {
        match self {
            Type::Pointer(p, ..) => Some(p),
            _ => None,
        }
    }
}

/// One member of a struct or union.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    pub name: String,
    pub ty: Type,
    pub offset: u32,
}

/// A member's `packed` and `aligned(N)` attributes (OpenCL C 6.11.1, as
/// in GCC): `packed` drops the member's natural alignment to 1, `aligned`
/// raises it to N (0: not given).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemberLayout {
    pub packed: bool,
    pub aligned: u32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StructDef {
    /// The tag (`point` of `struct point`), if any.
    pub tag: Option<String>,
    pub is_union: bool,
    pub members: Vec<Member>,
    pub size: u32,
    pub align: u32,
    pub complete: bool,
}

/// Every struct and union of a program; [`Type::Struct`] indexes it.
#[derive(Clone, Debug, Default)]
pub struct TypeTable {
    pub structs: Vec<StructDef>,
}

impl TypeTable {
    /// Size and alignment in bytes of `ty` (C layout, OpenCL alignment).
    pub fn size_align(&self, ty: &Type) -> (u32, u32) {
        match ty {
            Type::Void => (1, 1),
            Type::Scalar(s) => (s.size(), s.size()),
            Type::Vector(s, n) => {
                let n = if *n == 3 { 4 } else { *n as u32 };
                let size = s.size() * n;
                (size, size)
            }
            Type::Pointer(..) => (8, 8),
            Type::Array(elem, n) => {
                let (size, align) = self.size_align(elem);
                (size.saturating_mul(*n), align)
            }
            Type::Struct(id) => match self.structs.get(*id) {
                Some(def) => (def.size, def.align),
                None => (0, 1),
            },
            Type::Opaque(_) => (8, 8),
        }
    }

    pub fn size(&self, ty: &Type) -> u32 {
        self.size_align(ty).0
    }

    /// Whether an object of type `t` holds a union: `t` is one, or an
    /// array or struct with one inside.
    pub fn contains_union(&self, t: &Type) -> bool {
        match t {
            Type::Array(e, _) => self.contains_union(e),
            Type::Struct(id) => self.structs.get(*id).is_some_and(|s| {
                s.is_union || s.members.iter().any(|m| self.contains_union(&m.ty))
            }),
            _ => false,
        }
    }

    /// Whether `t` is or holds a pointer.
    pub fn contains_pointer(&self, t: &Type) -> bool {
        match t {
            Type::Pointer(..) => true,
            Type::Array(e, _) => self.contains_pointer(e),
            Type::Struct(id) => self
                .structs
                .get(*id)
                .is_some_and(|s| s.members.iter().any(|m| self.contains_pointer(&m.ty))),
            _ => false,
        }
    }

    pub fn align(&self, ty: &Type) -> u32 {
        self.size_align(ty).1
    }

    /// Lays out `members` (offsets filled in) with C rules; `attrs` are
    /// the members' own attributes (missing ones: none), `packed` drops
    /// padding, `min_align` is the struct's `aligned(N)` attribute.
    pub fn layout(
        &self,
        members: &mut [Member],
        attrs: &[MemberLayout],
        is_union: bool,
        packed: bool,
        min_align: u32,
    ) -> (u32, u32) {
        let mut offset = 0u32;
        let mut size = 0u32;
        let mut align = 1u32;
        for (i, m) in members.iter_mut().enumerate() {
            let (msize, malign) = self.size_align(&m.ty);
            let attr = attrs.get(i).copied().unwrap_or_default();
            let malign = if packed || attr.packed {
                1
            } else {
                malign.max(1)
            };
            let malign = malign.max(attr.aligned);
            align = align.max(malign);
            if is_union {
                m.offset = 0;
                size = size.max(msize);
            } else {
                offset = round_up(offset, malign);
                m.offset = offset;
                offset = offset.saturating_add(msize);
                size = offset;
            }
        }
        let align = align.max(min_align.max(1));
        (round_up(size, align), align)
    }

    /// The name `CL_KERNEL_ARG_TYPE_NAME` reports: `float*`, `uint4`,
    /// `struct point*`.
    pub fn name(&self, ty: &Type) -> String {
        match ty {
            Type::Void => "void".into(),
            Type::Scalar(s) => s.name().into(),
            Type::Vector(s, n) => format!("{}{}", s.name(), n),
            Type::Pointer(p, ..) => format!("{}*", self.name(p)),
            Type::Array(e, n) => format!("{}[{}]", self.name(e), n),
            Type::Struct(id) => match self.structs.get(*id) {
                Some(def) => format!(
                    "{} {}",
                    if def.is_union { "union" } else { "struct" },
                    def.tag.as_deref().unwrap_or("")
                )
                .trim_end()
                .to_string(),
                None => "struct".into(),
            },
            Type::Opaque(n) => (*n).into(),
        }
    }

    /// The member `name` of struct or union `id`, also through anonymous
    /// struct and union members (C11 6.7.2.1p13: their members are
    /// members of the containing one): the indices from `id` down to it,
    /// the member, and its offset from the start of `id`.
    pub fn member_path(&self, id: StructId, name: &str) -> Option<(Vec<u32>, &Member, u32)> {
        let def = self.structs.get(id)?;
        if let Some(i) = def.members.iter().position(|m| m.name == name) {
            let m = &def.members[i];
            return Some((vec![i as u32], m, m.offset));
        }
        def.members
            .iter()
            .enumerate()
            .find_map(|(i, m)| match m.ty {
                Type::Struct(inner) if m.name.is_empty() => {
                    let (mut path, found, offset) = self.member_path(inner, name)?;
                    path.insert(0, i as u32);
                    Some((path, found, m.offset + offset))
                }
                _ => None,
            })
    }
}

pub fn round_up(v: u32, align: u32) -> u32 {
    if align <= 1 {
        v
    } else {
        v.div_ceil(align).saturating_mul(align)
    }
}

/// Parses a vector type name such as `float4` or `uchar16`.
pub fn vector_from_name(name: &str) -> Option<Type> {
    let split = name.find(|c: char| c.is_ascii_digit())?;
    let (base, n) = name.split_at(split);
    let n: u8 = n.parse().ok()?;
    if !matches!(n, 2 | 3 | 4 | 8 | 16) {
        return None;
    }
    let s = Scalar::from_name(base)?;
    if s == Scalar::Bool || matches!(base, "size_t" | "ptrdiff_t" | "intptr_t" | "uintptr_t") {
        return None;
    }
    Some(Type::Vector(s, n))
}

/// Integer promotion (C99 6.3.1.1): ranks below int become int.
pub fn promote(s: Scalar) -> Scalar {
    match s {
        Scalar::Bool | Scalar::Char | Scalar::UChar | Scalar::Short | Scalar::UShort => Scalar::Int,
        other => other,
    }
}

/// The usual arithmetic conversions (C99 6.3.1.8) on two scalars.
pub fn common_scalar(a: Scalar, b: Scalar) -> Scalar {
    if a.is_float() || b.is_float() {
        let bits = |s: Scalar| if s.is_float() { s.bits() } else { 0 };
        return Scalar::float(bits(a).max(bits(b)));
    }
    let (a, b) = (promote(a), promote(b));
    if a == b {
        return a;
    }
    let bits = a.bits().max(b.bits());
    let unsigned = (a.bits() == bits && !a.is_signed()) || (b.bits() == bits && !b.is_signed());
    Scalar::int(bits, !unsigned)
}

impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_vectors_are_sized_as_four() {
        let t = TypeTable::default();
        assert_eq!(t.size_align(&Type::Vector(Scalar::Float, 3)), (16, 16));
        assert_eq!(t.size_align(&Type::Vector(Scalar::UChar, 3)), (4, 4));
    }

    #[test]
    fn struct_layout_is_c() {
        let t = TypeTable::default();
        let mut m = vec![
            Member {
                name: "a".into(),
                ty: Type::Scalar(Scalar::Char),
                offset: 0,
            },
            Member {
                name: "b".into(),
                ty: Type::Vector(Scalar::Float, 4),
                offset: 0,
            },
            Member {
                name: "c".into(),
                ty: Type::Scalar(Scalar::Int),
                offset: 0,
            },
        ];
        assert_eq!(t.layout(&mut m, &[], false, false, 1), (48, 16));
        assert_eq!(m[1].offset, 16);
        assert_eq!(m[2].offset, 32);
        assert_eq!(t.layout(&mut m, &[], false, true, 1), (21, 1));
    }

    #[test]
    fn member_attributes_change_layout() {
        let t = TypeTable::default();
        let member = |name: &str, s: Scalar| Member {
            name: name.into(),
            ty: Type::Scalar(s),
            offset: 0,
        };
        let mut m = vec![member("c", Scalar::Char), member("n", Scalar::Int)];
        let aligned = MemberLayout {
            packed: false,
            aligned: 8,
        };
        assert_eq!(
            t.layout(&mut m, &[Default::default(), aligned], false, false, 1),
            (16, 8)
        );
        assert_eq!(m[1].offset, 8);
        // Under `packed`, `aligned` still raises a member's alignment.
        assert_eq!(
            t.layout(&mut m, &[Default::default(), aligned], false, true, 1),
            (16, 8)
        );
        let packed = MemberLayout {
            packed: true,
            aligned: 0,
        };
        assert_eq!(
            t.layout(&mut m, &[Default::default(), packed], false, false, 1),
            (5, 1)
        );
        assert_eq!(m[1].offset, 1);
    }

    #[test]
    fn usual_arithmetic_conversions() {
        assert_eq!(common_scalar(Scalar::Char, Scalar::UShort), Scalar::Int);
        assert_eq!(common_scalar(Scalar::UInt, Scalar::Int), Scalar::UInt);
        assert_eq!(common_scalar(Scalar::Long, Scalar::UInt), Scalar::Long);
        assert_eq!(common_scalar(Scalar::Int, Scalar::Float), Scalar::Float);
        assert_eq!(
            vector_from_name("uchar16"),
            Some(Type::Vector(Scalar::UChar, 16))
        );
        assert_eq!(vector_from_name("float5"), None);
    }
}
