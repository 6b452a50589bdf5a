//! `__constant` tables read by name: `k_sha512[i]`.
//!
//! A `__constant` variable lives in the program's data buffer, so that its
//! address is a `__constant` pointer like any other (DESIGN.md). Reading
//! an element through that buffer is a load from device memory at every
//! use, where NVIDIA's OpenCL compiler keeps such a table in a constant
//! bank and, once a loop is unrolled, folds each element into the
//! instruction that uses it. hashcat's SHA-2 kernels read their round
//! constants this way in loops of 16 rounds.
//!
//! So an element read straight from a named `__constant` array of 32- or
//! 64-bit scalars or vectors (`t[i]`, `t[i][j]`) reads instead a
//! module-scope `Private` copy of the table with the initial bytes as its
//! initializer, which is never written: drivers treat such an array as
//! immediate data (a constant bank on NVIDIA, a constant global in LLVM),
//! and fold reads at constant indices. The indices are flattened into one
//! element index, as C's array layout has it. Anything else (`&t[i]`, `t`
//! decaying, tables of structs or of narrower types) keeps reading the
//! data buffer.

use super::*;

/// Tables larger than this stay in the data buffer: a constant bank is
/// 64 KiB on NVIDIA GPUs, and its first part holds the driver's own data.
const MAX_TABLE_BYTES: u32 = 16 * 1024;

/// A table's `Private` copy.
#[derive(Clone)]
pub(super) struct ConstantTable {
    /// Made at the first read at a run-time index.
    var: Option<Word>,
    /// The SPIR-V types of the table and of one element.
    array: Word,
    elem: Word,
    /// The constant of each element: a read at a constant index is that
    /// constant.
    elements: Rc<[Word]>,
}

impl<'a> Lowerer<'a> {
    /// The value of `e` when it reads an element of a named `__constant`
    /// table that a `Private` copy can serve; None (and nothing emitted)
    /// otherwise.
    pub(super) fn constant_table_read(&mut self, e: &'a Expr) -> Option<R<Val>> {
        let mut indices = Vec::new();
        let mut base = e;
        while let ExprKind::Index(a, i) = &base.kind {
            indices.push(&**i);
            base = a;
        }
        indices.reverse();
        let ExprKind::Ident(name) = &base.kind else {
            return None;
        };
        let sym = self.symbol(name)?;
        if sym.sc != StorageClass::UniformConstant {
            return None;
        }
        let (root, table_ty) = (sym.root, sym.ty.clone());
        // The strides of the dimensions indexed, in elements, and the
        // element type left after them.
        let mut strides = Vec::with_capacity(indices.len());
        let mut ty = &table_ty;
        for _ in &indices {
            let Type::Array(elem, _) = ty else {
                return None;
            };
            ty = elem;
            strides.push(ty);
        }
        let elem = ty.clone();
        let scalar = match &elem {
            Type::Scalar(s) | Type::Vector(s, _) => *s,
            _ => return None,
        };
        if !matches!(scalar.size(), 4 | 8) {
            return None;
        }
        let elem_bytes = self.types.size(&elem);
        let table_bytes = self.types.size(&table_ty);
        if table_bytes == 0
            || table_bytes > MAX_TABLE_BYTES
            || !table_bytes.is_multiple_of(elem_bytes)
        {
            return None;
        }
        let strides: Vec<u32> = strides
            .iter()
            .map(|t| self.types.size(t) / elem_bytes)
            .collect();
        let table = self.constant_table(root, &elem, table_bytes / elem_bytes)?;
        Some(self.read_constant_table(root, table, &indices, &strides, elem))
    }

    fn read_constant_table(
        &mut self,
        offset: u32,
        table: ConstantTable,
        indices: &[&'a Expr],
        strides: &[u32],
        elem: Type,
    ) -> R<Val> {
        let u = self.m.ty(TypeKey::Int(32));
        let mut flat = None;
        for (i, &stride) in indices.iter().zip(strides) {
            let v = self.expr(i)?;
            let v = self.convert(v, &Type::UINT, i.span, false)?.id;
            let scaled = match stride {
                1 => v,
                s => {
                    let s = self.u32c(s);
                    self.op(Op::IMul, u, &[v, s])
                }
            };
            flat = Some(match flat {
                None => scaled,
                Some(f) => self.op(Op::IAdd, u, &[f, scaled]),
            });
        }
        let flat = flat?;
        let known = self.m.int_constant(flat).map(|(_, i)| i);
        if let Some(&id) = known.and_then(|i| table.elements.get(usize::try_from(i).ok()?)) {
            if self.int64_types.contains_key(&table.elem) {
                self.int64_vals.insert(id, table.elem);
            }
            return Some(Val::new(id, elem));
        }
        let var = match table.var {
            Some(var) => var,
            None => {
                let elements = table.elements.to_vec();
                let init = self.m.constant(ConstKey::Composite(table.array, elements));
                let ptr = self
                    .m
                    .ty(TypeKey::Pointer(StorageClass::Private, table.array));
                let var = self
                    .m
                    .global(Op::Variable, ptr, &[StorageClass::Private as u32, init]);
                if let Some(t) = self.constant_tables.get_mut(&offset) {
                    t.var = Some(var);
                }
                var
            }
        };
        // SPIR-V 1.4 lists every global variable an entry point reaches
        // among its interface.
        if self.caps.spirv_version >= (1, 4) {
            self.k.interface.insert(var);
        }
        let p = self
            .m
            .ty(TypeKey::Pointer(StorageClass::Private, table.elem));
        let at = self.op(Op::AccessChain, p, &[var, flat]);
        Some(Val::new(self.op(Op::Load, table.elem, &[at]), elem))
    }

    /// The `Private` copy of the table at `offset` in the data buffer, of
    /// `count` elements of type `elem`, made on first use.
    fn constant_table(&mut self, offset: u32, elem: &Type, count: u32) -> Option<ConstantTable> {
        if let Some(t) = self.constant_tables.get(&offset) {
            return Some(t.clone());
        }
        let elem_bytes = self.types.size(elem) as usize;
        let start = offset as usize;
        let bytes = self
            .global_data
            .get(start..start + elem_bytes * count as usize)?
            .to_vec();
        let elem_ty = self.sty(elem);
        let (scalar, width) = match elem {
            Type::Scalar(s) => (*s, 1),
            Type::Vector(s, n) => (*s, *n as usize),
            _ => return None,
        };
        let scalar_ty = self.sty(&Type::Scalar(scalar));
        let size = scalar.size() as usize;
        let mut elements = Vec::with_capacity(count as usize);
        for chunk in bytes.chunks_exact(elem_bytes) {
            let parts: Vec<Word> = (0..width)
                .map(|c| {
                    let mut word = [0u8; 8];
                    word[..size].copy_from_slice(&chunk[c * size..(c + 1) * size]);
                    let bits = u64::from_le_bytes(word);
                    self.m.constant(ConstKey::Bits(scalar_ty, bits))
                })
                .collect();
            elements.push(match elem {
                Type::Vector(..) => self.m.constant(ConstKey::Composite(elem_ty, parts)),
                _ => parts[0],
            });
        }
        let len = self.u32c(count);
        let array = self.m.ty(TypeKey::Array(elem_ty, len));
        let table = ConstantTable {
            var: None,
            array,
            elem: elem_ty,
            elements: elements.into(),
        };
        self.constant_tables.insert(offset, table.clone());
        Some(table)
    }
}
