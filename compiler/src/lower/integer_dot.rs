//! cl_khr_integer_dot_product: `dot` and `dot_acc_sat` of two vectors of
//! four 8-bit integers, and the `dot_*4x8packed_*` forms taking the four
//! components packed into a `uint`. Both forms work on the packed words
//! (a `char4` or `uchar4` is bit-cast to one).
//!
//! Where the target asks for them (`TargetCaps::integer_dot_product`: the
//! runtime does where the driver accelerates them), each call is one
//! SPIR-V dot instruction (`OpSDot`, `OpUDot`, `OpSUDot`, or their
//! `AccSat` forms), which drivers map to the hardware's 4 x 8-bit dot
//! instructions. Elsewhere it is plain 32-bit integer arithmetic: each
//! byte sign- or zero-extended, the products summed (the sum cannot
//! overflow, as 4 x 255 x 255 < 2^31).

use super::*;

/// The OpenCL C 3.0 features the two forms need.
const FEATURE_VECTORS: &str = "__opencl_c_integer_dot_product_input_4x8bit";
const FEATURE_PACKED: &str = "__opencl_c_integer_dot_product_input_4x8bit_packed";
/// SPIR-V's `PackedVectorFormat4x8Bit` operand: the inputs are 32-bit
/// words holding four 8-bit components.
const PACKED_VECTOR_FORMAT_4X8_BIT: u32 = 0;

/// Is `name` with these arguments an integer dot product: `dot` of two
/// 8-bit four-component vectors, `dot_acc_sat`, or a packed form?
pub(super) fn is_integer_dot(name: &str, vals: &[Val]) -> bool {
    let bytes4 = |v: &Val| matches!(v.ty, Type::Vector(Scalar::Char | Scalar::UChar, 4));
    match name {
        "dot" => vals.len() == 2 && vals.iter().all(bytes4),
        "dot_acc_sat" => true,
        _ => packed_signedness(name).is_some(),
    }
}

/// How many arguments an integer dot product built-in takes; `None` for
/// other names.
pub(super) fn arity(name: &str) -> Option<usize> {
    match name {
        "dot_acc_sat" => Some(3),
        _ => packed_signedness(name).map(|(_, _, acc)| if acc { 3 } else { 2 }),
    }
}

/// The signedness of the two inputs of a packed form, from its name
/// (`dot_4x8packed_su_int`: a signed, b unsigned), and whether it
/// accumulates.
fn packed_signedness(name: &str) -> Option<(bool, bool, bool)> {
    let (rest, accumulate) = match name.strip_prefix("dot_acc_sat_4x8packed_") {
        Some(rest) => (rest, true),
        None => (name.strip_prefix("dot_4x8packed_")?, false),
    };
    let (a, b) = match rest {
        "uu_uint" => (false, false),
        "ss_int" => (true, true),
        "us_int" => (false, true),
        "su_int" => (true, false),
        _ => return None,
    };
    Some((a, b, accumulate))
}

impl<'a> Lowerer<'a> {
    pub(super) fn integer_dot(&mut self, name: &str, mut vals: Vec<Val>, span: Span) -> R<Val> {
        let packed = packed_signedness(name);
        let feature = if packed.is_some() {
            FEATURE_PACKED
        } else {
            FEATURE_VECTORS
        };
        self.require_feature("cl_khr_integer_dot_product", feature, name, span)?;
        // The caller checked the count against `arity`.
        let accumulate = packed.map_or(name == "dot_acc_sat", |p| p.2);
        let acc = accumulate.then(|| vals.pop()).flatten();
        let (a, b) = (vals.remove(0), vals.remove(0));
        let (a_signed, b_signed, a, b) = self.packed_operands(name, packed, a, b, span)?;
        if self.caps.integer_dot_product {
            return self.dot_instruction((a_signed, b_signed), (a, b), acc, span);
        }
        let (a, b) = (
            self.unpack_bytes(a, a_signed),
            self.unpack_bytes(b, b_signed),
        );
        // Unsigned only when both inputs are: `uint dot(uchar4, uchar4)`.
        let result = if a_signed || b_signed {
            Type::INT
        } else {
            Type::UINT
        };
        // Summed as ints whatever the result: no sum overflows.
        let int = self.sty(&Type::INT);
        let mut sum = None;
        for (x, y) in a.into_iter().zip(b) {
            let p = self.op(Op::IMul, int, &[x, y]);
            sum = Some(match sum {
                None => p,
                Some(s) => self.op(Op::IAdd, int, &[s, p]),
            });
        }
        let mut sum = sum?;
        if result == Type::UINT {
            let uint = self.sty(&Type::UINT);
            sum = self.op(Op::Bitcast, uint, &[sum]);
        }
        let id = match acc {
            Some(acc) => {
                let acc = self.convert(acc, &result, span, false)?.id;
                self.saturating(true, sum, acc, &result)
            }
            None => sum,
        };
        Some(Val::new(id, result))
    }

    /// The two inputs as packed 32-bit words, with their signedness (from
    /// the name for the packed forms, from the vector types otherwise).
    fn packed_operands(
        &mut self,
        name: &str,
        packed: Option<(bool, bool, bool)>,
        a: Val,
        b: Val,
        span: Span,
    ) -> R<(bool, bool, Word, Word)> {
        match packed {
            Some((sa, sb, _)) => {
                let a = self.convert(a, &Type::UINT, span, false)?.id;
                let b = self.convert(b, &Type::UINT, span, false)?.id;
                Some((sa, sb, a, b))
            }
            None => {
                let sa = self.byte_vector_signedness(&a, name, span)?;
                let sb = self.byte_vector_signedness(&b, name, span)?;
                // Four 8-bit components are one 32-bit word.
                let uint = self.sty(&Type::UINT);
                let a = self.op(Op::Bitcast, uint, &[a.id]);
                let b = self.op(Op::Bitcast, uint, &[b.id]);
                Some((sa, sb, a, b))
            }
        }
    }

    /// One SPIR-V dot instruction on two packed words of the given
    /// signedness, accumulating into `acc` with saturation if given.
    fn dot_instruction(
        &mut self,
        (sa, sb): (bool, bool),
        (a, b): (Word, Word),
        acc: Option<Val>,
        span: Span,
    ) -> R<Val> {
        self.m.capability(Capability::DotProduct);
        self.m.capability(Capability::DotProductInput4x8BitPacked);
        if self.caps.spirv_version < (1, 6) {
            self.m
                .extensions
                .insert("SPV_KHR_integer_dot_product".into());
        }
        let accumulate = acc.is_some();
        // OpSUDot takes the signed input first.
        let (op, first, second) = match (sa, sb) {
            (false, false) if accumulate => (Op::UDotAccSat, a, b),
            (false, false) => (Op::UDot, a, b),
            (true, true) if accumulate => (Op::SDotAccSat, a, b),
            (true, true) => (Op::SDot, a, b),
            (true, false) if accumulate => (Op::SUDotAccSat, a, b),
            (true, false) => (Op::SUDot, a, b),
            (false, true) if accumulate => (Op::SUDotAccSat, b, a),
            (false, true) => (Op::SUDot, b, a),
        };
        let result = if sa || sb { Type::INT } else { Type::UINT };
        let ty = self.sty(&result);
        let format = PACKED_VECTOR_FORMAT_4X8_BIT;
        let id = match acc {
            Some(acc) => {
                let acc = self.convert(acc, &result, span, false)?.id;
                self.op(op, ty, &[first, second, acc, format])
            }
            None => self.op(op, ty, &[first, second, format]),
        };
        Some(Val::new(id, result))
    }

    /// Whether a `char4` (true) or `uchar4` (false) argument is signed;
    /// anything else is diagnosed.
    fn byte_vector_signedness(&mut self, v: &Val, name: &str, span: Span) -> R<bool> {
        match v.ty {
            Type::Vector(Scalar::Char, 4) => Some(true),
            Type::Vector(Scalar::UChar, 4) => Some(false),
            _ => {
                self.error(span, format!("'{name}' takes two char4 or uchar4 vectors"));
                None
            }
        }
    }

    /// The four bytes of a packed word, lowest first, each sign- or
    /// zero-extended to a 32-bit integer.
    fn unpack_bytes(&mut self, word: Word, signed: bool) -> [Word; 4] {
        let int = self.sty(&Type::INT);
        let eight = self.u32c(8);
        let op = if signed {
            Op::BitFieldSExtract
        } else {
            Op::BitFieldUExtract
        };
        let word = self.op(Op::Bitcast, int, &[word]);
        [0, 8, 16, 24].map(|at| {
            let at = self.u32c(at);
            self.op(op, int, &[word, at, eight])
        })
    }
}
