//! Calls to built-in functions: the lowering of each entry of
//! [`crate::sema::builtins`].

use super::*;
use crate::sema::builtins::{glsl, AtomicOp, Builtin, Rounding, WorkItem};

/// Kinds of printf arguments in a record.
const PRINTF_SIGNED: u32 = 0;
const PRINTF_UNSIGNED: u32 = 1;
const PRINTF_FLOAT: u32 = 2;
const PRINTF_DOUBLE: u32 = 3;
const PRINTF_STRING: u32 = 4;
const PRINTF_POINTER: u32 = 5;

impl<'a> Lowerer<'a> {
    pub(super) fn builtin(
        &mut self,
        b: Builtin,
        name: &str,
        args: &'a [Expr],
        span: Span,
    ) -> R<Val> {
        if b == Builtin::Special("printf") {
            return self.printf(args, span);
        }
        match b {
            Builtin::Fence(kind) => return self.fence(kind, args, span),
            Builtin::AtomicC11 { op, explicit } => {
                return self.atomic_c11(op, explicit, name, args, span)
            }
            Builtin::WorkGroup(op) => return self.work_group(op, name, args, span),
            Builtin::SubGroup(f) => return self.sub_group(f, name, args, span),
            _ => {}
        }
        if b == Builtin::Special("__builtin_assume") {
            // A hint only; as in clang, the condition is not evaluated.
            if args.len() != 1 {
                self.error(span, "'__builtin_assume' takes 1 argument");
                return None;
            }
            return Some(Val::new(0, Type::Void));
        }
        if b == Builtin::Special("wait_group_events") {
            if args.len() != 2 {
                self.error(span, "'wait_group_events' takes 2 arguments");
                return None;
            }
            // The copies were made by the work-items themselves: a barrier
            // over both memories completes them for the whole group.
            let wg = self.u32c(SCOPE_WORKGROUP);
            let sem =
                self.u32c(SEM_ACQ_REL | SEM_WORKGROUP | SEM_UNIFORM | SEM_AVAILABLE | SEM_VISIBLE);
            self.op_void(Op::ControlBarrier, &[wg, wg, sem]);
            return Some(Val::new(0, Type::Void));
        }
        let mut vals = Vec::new();
        for a in args {
            vals.push(self.expr(a)?);
        }
        let want = match b {
            Builtin::WorkItem(WorkItem::WorkDim)
            | Builtin::WorkItem(WorkItem::GlobalLinearId)
            | Builtin::WorkItem(WorkItem::LocalLinearId) => Some(0),
            Builtin::WorkItem(_) => Some(1),
            Builtin::Atomic(AtomicOp::Inc | AtomicOp::Dec) => Some(1),
            Builtin::Atomic(AtomicOp::CmpXchg) => Some(3),
            Builtin::Atomic(_) => Some(2),
            Builtin::FloatGlsl { arity, .. }
            | Builtin::MinMax { arity, .. }
            | Builtin::Library { arity, .. } => Some(arity as usize),
            Builtin::Convert { .. } | Builtin::AsType(_) => Some(1),
            Builtin::VLoad(_) | Builtin::VLoadHalf(..) => Some(2),
            Builtin::VStoreHalf(..) => Some(3),
            Builtin::VStore(_) => Some(3),
            Builtin::Special(n) => integer_dot::arity(n)
                .or_else(|| bit_ops::BitOp::from_name(n).map(bit_ops::BitOp::arity))
                .or_else(|| clock::clock_read(n).map(|_| 0))
                .or(Some(match n {
                    "mad" | "mad24" | "mad_hi" | "bitselect" | "select" | "clamp"
                    | "smoothstep" => 3,
                    "async_copy" => 4,
                    "mad_sat" => 3,
                    "ilogb" => 1,
                    "shuffle2" | "remquo" => 3,
                    "async_strided_copy" => 5,
                    "nan" | "isnormal" | "recip" | "round" | "abs" | "popcount" | "clz" | "ctz"
                    | "length" | "normalize" | "isnan" | "isinf" | "isfinite" | "signbit"
                    | "any" | "all" => 1,
                    _ => 2,
                })),
            Builtin::Fence(_)
            | Builtin::AtomicC11 { .. }
            | Builtin::WorkGroup(_)
            | Builtin::SubGroup(_) => None,
        };
        if let Some(n) = want {
            if vals.len() != n {
                self.error(
                    span,
                    format!(
                        "'{name}' takes {n} argument{}, {} given",
                        if n == 1 { "" } else { "s" },
                        vals.len()
                    ),
                );
                return None;
            }
        }
        match b {
            Builtin::WorkItem(w) => {
                let constant_dim = args
                    .first()
                    .and_then(|a| consteval::eval(a, self.types))
                    .map(|v| v.as_i64());
                self.work_item(w, vals.first().cloned(), constant_dim, span)
            }
            Builtin::Atomic(op) => self.atomic(op, vals, span),
            Builtin::FloatGlsl { op, f32_only, .. } => {
                let t = self.float_gentype(&vals, span)?;
                if f32_only && t.elem_scalar() == Some(Scalar::Double) {
                    // GLSL.std.450 Radians/Degrees take 16- and 32-bit floats
                    // only; one multiply by the rounded factor is within the
                    // 2 ulp OpenCL allows.
                    let factor = match op {
                        glsl::DEGREES => Some(180.0 / std::f64::consts::PI),
                        glsl::RADIANS => Some(std::f64::consts::PI / 180.0),
                        _ => None,
                    };
                    if let Some(factor) = factor {
                        let ids = self.convert_all(vals, &t, span)?;
                        let ty = self.sty(&t);
                        let k = self.constant(&t, ConstVal::Float(factor));
                        return Some(Val::new(self.op(Op::FMul, ty, &[ids[0], k]), t));
                    }
                    self.error(span, format!("'{name}' is not supported for double yet"));
                    return None;
                }
                let ids = self.convert_all(vals, &t, span)?;
                let ty = self.sty(&t);
                let r = self.glsl(ty, op, &ids);
                if op == glsl::INVERSE_SQRT && t.elem_scalar() == Some(Scalar::Double) {
                    // NVIDIA's double InverseSqrt answers 0 for some NaNs.
                    let bt = self.bool_ty(t.width());
                    let nan = self.op(Op::IsNan, bt, &[ids[0]]);
                    return Some(Val::new(self.op(Op::Select, ty, &[nan, ids[0], r]), t));
                }
                Some(Val::new(r, t))
            }
            Builtin::Library { func, fallback, .. } => {
                self.library_math(func, fallback, vals, name, span)
            }
            Builtin::MinMax { fop, sop, uop, .. } => {
                let t = self.gentype(&vals, span)?;
                let s = t.elem_scalar()?;
                let ids = self.convert_all(vals, &t, span)?;
                let op = if s.is_float() {
                    fop
                } else if s.is_signed() {
                    sop
                } else {
                    uop
                };
                let ty = self.sty(&t);
                Some(Val::new(self.glsl(ty, op, &ids), t))
            }
            Builtin::Convert { to, sat, rounding } => {
                let v = vals.remove(0);
                self.convert_builtin(v, &to, sat, rounding, span)
            }
            Builtin::AsType(to) => {
                let v = vals.remove(0);
                self.as_type(v, &to, span)
            }
            Builtin::VLoad(n) => self.vload(n, vals, span),
            Builtin::VLoadHalf(n, stride) => self.vload_half(n, stride, vals, span),
            Builtin::VStoreHalf(n, stride) => self.vstore_half(n, stride, vals, span),
            Builtin::VStore(n) => self.vstore(n, vals, span),
            Builtin::Special(n) => self.special(n, vals, span),
            Builtin::Fence(_)
            | Builtin::AtomicC11 { .. }
            | Builtin::WorkGroup(_)
            | Builtin::SubGroup(_) => None,
        }
    }

    /// A math built-in of the built-in library, per component. Float
    /// functions prefer their version computed in double (`_ff64`, present
    /// when the device has doubles), then the float one, then the
    /// GLSL.std.450 `fallback`; half is computed in float and rounded once
    /// where no instruction serves.
    fn library_math(
        &mut self,
        func: &str,
        fallback: Option<u32>,
        vals: Vec<Val>,
        name: &str,
        span: Span,
    ) -> R<Val> {
        let t = self.float_gentype(&vals, span)?;
        let s = t.elem_scalar()?;
        // -cl-fast-relaxed-math relaxes the precision of math functions,
        // not the correct rounding of fma.
        let relaxed = self.float_mode.native_math && func != "__ferrocl_fma";
        // Half goes through float (the library, or the GLSL instruction on
        // float) and is rounded once: drivers' half instructions are less
        // precise than OpenCL's half bounds (NVIDIA's half sin is 2+ ulp
        // off).
        //
        // Not exp, exp2, log and log2: Vulkan bounds Exp and Exp2 by
        // 3 + 2|x| ulp where OpenCL's relaxed bound is 3 + floor(2|x|)
        // (lavapipe's exp is 3.0015 ulp off at x = -0.031, past OpenCL's
        // 3), and says nothing of denormal inputs to Log and Log2 that are
        // not preserved (lavapipe's log(0x1p-141f) is -86.5: neither
        // log(x) nor log(0)). The CTS's relaxed exp, exp2, log and log2
        // failed on lavapipe; the library meets both bounds.
        let vulkan_bound_is_opencls = !matches!(
            func,
            "__ferrocl_exp" | "__ferrocl_exp2" | "__ferrocl_log" | "__ferrocl_log2"
        );
        let glsl_first =
            (relaxed && vulkan_bound_is_opencls && matches!(s, Scalar::Float | Scalar::Half))
                || (func == "__ferrocl_fma" && self.caps.fused_fma);
        if let (true, Some(op)) = (glsl_first, fallback) {
            let ids = self.convert_all(vals, &t, span)?;
            let ty = self.sty(&t);
            return Some(Val::new(self.glsl(ty, op, &ids), t));
        }
        let work = if s == Scalar::Half {
            t.with_elem(Scalar::Float)
        } else {
            t.clone()
        };
        let names = match s {
            Scalar::Double => vec![format!("{func}_f64")],
            // A half version on float values where float's would not round
            // to the half answer (nextafter).
            Scalar::Half => vec![
                format!("{func}_h"),
                format!("{func}_ff64"),
                func.to_string(),
            ],
            _ => vec![format!("{func}_ff64"), func.to_string()],
        };
        let lib_fn = names
            .iter()
            .find_map(|n| self.funcs.get(n.as_str()).copied());
        let Some(f) = lib_fn else {
            if let (Scalar::Float | Scalar::Half, Some(op)) = (s, fallback) {
                let ids = self.convert_all(vals, &work, span)?;
                let ty = self.sty(&work);
                let r = self.glsl(ty, op, &ids);
                if s == Scalar::Half {
                    let id = self.convert_elems(r, Scalar::Float, Scalar::Half, t.width());
                    return Some(Val::new(id, t));
                }
                return Some(Val::new(r, t));
            }
            self.error(span, format!("'{name}' is not supported for {s} yet"));
            return None;
        };
        let ids = self.convert_all(vals, &work, span)?;
        let r = self.call_library(f, &work, &ids, span)?;
        if s == Scalar::Half {
            let id = self.convert_elems(r.id, Scalar::Float, Scalar::Half, t.width());
            return Some(Val::new(id, t));
        }
        Some(r)
    }

    /// A math built-in that returns `value(x..)` and stores the int
    /// `int_out(x..)` through its last argument: `lgamma_r` (the sign of
    /// Gamma, 0 at zero and the negative integers) and `remquo` (the low
    /// bits of the quotient).
    fn with_int_output(
        &mut self,
        value: &str,
        int_out: &str,
        mut vals: Vec<Val>,
        span: Span,
    ) -> R<Val> {
        let name = if int_out == "__ferrocl_remquo_quo" {
            "remquo"
        } else {
            "lgamma_r"
        };
        let p = vals.pop()?;
        let t = self.float_gentype(&vals, span)?;
        let it = t.with_elem(Scalar::Int);
        if p.ty.pointee() != Some(&it) {
            let (a, b) = (self.types.name(&p.ty), self.types.name(&it));
            self.error(
                span,
                format!("'{name}' stores an {b} through its pointer, not through a '{a}'"),
            );
            return None;
        }
        let v = self.library_math(value, None, vals.clone(), name, span)?;
        let out = self.library_math(int_out, None, vals, name, span)?;
        let from = out.ty.elem_scalar()?;
        let out_i = self.convert_elems(out.id, from, Scalar::Int, t.width());
        let place = self.deref(p, span)?;
        self.store(&place, &Val::new(out_i, it), span);
        Some(v)
    }

    /// `length`, `distance` and `normalize`: the library's versions, which
    /// scale the vector by a power of two so that the sum of squares
    /// neither overflows nor underflows (GLSL.std.450 `Length` squares the
    /// components as they are). Half is computed in float and rounded once.
    fn geometric(&mut self, name: &str, vals: Vec<Val>, span: Span) -> R<Val> {
        let t = self.float_gentype(&vals, span)?;
        let s = t.elem_scalar()?;
        let n = t.width();
        if n > 4 {
            self.error(
                span,
                format!("'{name}' takes scalars and vectors of 2, 3 or 4 components"),
            );
            return None;
        }
        let work = if s == Scalar::Half {
            t.with_elem(Scalar::Float)
        } else {
            t.clone()
        };
        let ws = work.elem_scalar()?;
        let func = if ws == Scalar::Double {
            format!("__ferrocl_{name}{n}_f64")
        } else {
            format!("__ferrocl_{name}{n}")
        };
        let Some(f) = self.funcs.get(func.as_str()).copied() else {
            self.error(span, format!("'{name}' is not supported for {s} yet"));
            return None;
        };
        let ids = self.convert_all(vals, &work, span)?;
        let args = ids
            .into_iter()
            .map(|id| Val::new(id, work.clone()))
            .collect();
        let r = self.call_function(f, args, span)?;
        if s == Scalar::Half {
            let rn = r.ty.width();
            let id = self.convert_elems(r.id, Scalar::Float, Scalar::Half, rn);
            return Some(Val::new(id, r.ty.with_elem(Scalar::Half)));
        }
        Some(r)
    }

    /// `sincos(x, cosp)`: the library's sin, and its cos stored through
    /// `cosp`.
    fn sincos(&mut self, mut vals: Vec<Val>, span: Span) -> R<Val> {
        let p = vals.pop()?;
        let t = self.float_gentype(&vals, span)?;
        if p.ty.pointee() != Some(&t) {
            let (a, b) = (self.types.name(&p.ty), self.types.name(&t));
            self.error(
                span,
                format!("'sincos' stores a {b} through its pointer, not through a '{a}'"),
            );
            return None;
        }
        let s = self.library_math(
            "__ferrocl_sin",
            Some(glsl::SIN),
            vals.clone(),
            "sincos",
            span,
        )?;
        let c = self.library_math("__ferrocl_cos", Some(glsl::COS), vals, "sincos", span)?;
        let place = self.deref(p, span)?;
        self.store(&place, &c, span);
        Some(s)
    }

    /// The float type a math built-in works in: the first vector argument's
    /// shape, integer arguments taken as float.
    fn float_gentype(&mut self, vals: &[Val], span: Span) -> R<Type> {
        let t = self.gentype(vals, span)?;
        if t.is_float() {
            Some(t)
        } else {
            Some(t.with_elem(Scalar::Float))
        }
    }

    fn gentype(&mut self, vals: &[Val], span: Span) -> R<Type> {
        let mut t: Option<Type> = None;
        for v in vals {
            if !v.ty.is_arith() {
                let n = self.types.name(&v.ty);
                self.error(
                    span,
                    format!("invalid argument of type '{n}' to a built-in function"),
                );
                return None;
            }
            t = Some(match t {
                None => v.ty.clone(),
                Some(cur) => {
                    if cur.is_vector() && v.ty.is_vector() && cur.width() != v.ty.width() {
                        self.error(span, "built-in arguments have different vector sizes");
                        return None;
                    }
                    let w = cur.width().max(v.ty.width());
                    let (a, b) = (cur.elem_scalar()?, v.ty.elem_scalar()?);
                    // A vector argument fixes the element type; scalars follow it.
                    let s = if cur.is_vector() {
                        a
                    } else if v.ty.is_vector() || a == b {
                        b
                    } else {
                        crate::sema::types::common_scalar(a, b)
                    };
                    Type::vector_or_scalar(s, w)
                }
            });
        }
        let t = t?;
        if t.elem_scalar() == Some(Scalar::Double) && !self.caps.fp64 {
            self.error(span, "type 'double' requires cl_khr_fp64 support");
            return None;
        }
        Some(t)
    }

    pub(super) fn convert_all(&mut self, vals: Vec<Val>, t: &Type, span: Span) -> R<Vec<Word>> {
        let mut ids = Vec::new();
        for v in vals {
            let v = if v.ty.is_vector()
                && v.ty.elem_scalar() != t.elem_scalar()
                && v.ty.width() == t.width()
            {
                let from = v.ty.elem_scalar()?;
                let to = t.elem_scalar()?;
                Val::new(self.convert_elems(v.id, from, to, t.width()), t.clone())
            } else {
                self.convert(v, t, span, false)?
            };
            ids.push(v.id);
        }
        Some(ids)
    }

    // ---- conversions ---------------------------------------------------------------

    fn convert_builtin(
        &mut self,
        v: Val,
        to: &Type,
        sat: bool,
        rounding: Rounding,
        span: Span,
    ) -> R<Val> {
        if !v.ty.is_arith() || v.ty.width() != to.width() {
            let (a, b) = (self.types.name(&v.ty), self.types.name(to));
            self.error(
                span,
                format!("cannot convert '{a}' to '{b}': the number of components differs"),
            );
            return None;
        }
        self.check_type_supported(to, span)?;
        let from = v.ty.elem_scalar()?;
        let dst = to.elem_scalar()?;
        if sat && dst.is_float() {
            self.error(
                span,
                "the '_sat' modifier may not be used for conversions to floating-point types",
            );
            return None;
        }
        let n = to.width();
        let src_t = v.ty.clone();
        let sty = self.sty(&src_t);
        let mut x = v.id;
        if from.is_float() && !dst.is_float() {
            let r = match rounding {
                Rounding::Rte => Some(glsl::ROUND_EVEN),
                Rounding::Rtp => Some(glsl::CEIL),
                Rounding::Rtn => Some(glsl::FLOOR),
                Rounding::Default | Rounding::Rtz => None,
            };
            if let Some(r) = r {
                x = self.glsl(sty, r, &[x]);
            }
            if sat {
                let (lo, hi) = int_range_f64(dst);
                let lo_c = self.constant(&src_t, ConstVal::Float(lo));
                let hi_c = self.constant(&src_t, ConstVal::Float(hi));
                let clamped = self.glsl(sty, glsl::FCLAMP, &[x, lo_c, hi_c]);
                let conv = self.convert_elems(clamped, from, dst, n);
                let tt = self.sty(to);
                let bt = self.bool_ty(n);
                let too_big = self.op(Op::FOrdGreaterThanEqual, bt, &[x, hi_c]);
                let max = self.constant(to, ConstVal::Int(int_max(dst)));
                let r = self.op(Op::Select, tt, &[too_big, max, conv]);
                let nan = self.op(Op::IsNan, bt, &[x]);
                let zero = self.constant(to, ConstVal::Int(0));
                let r = self.op(Op::Select, tt, &[nan, zero, r]);
                return Some(Val::new(r, to.clone()));
            }
        }
        if sat && from.is_integer() && dst.is_integer() {
            x = self.saturate_int(x, &src_t, dst);
        }
        let id = self.convert_elems(x, from, dst, n);
        // Sources whose values the destination float may not hold exactly:
        // only there do the directed rounding modes differ from the default.
        let inexact_source = match dst {
            Scalar::Float => (from.is_integer() && from.bits() > 16) || from == Scalar::Double,
            Scalar::Double => from.is_integer() && from.bits() == 64,
            _ => false,
        };
        let directed = matches!(rounding, Rounding::Rtz | Rounding::Rtp | Rounding::Rtn);
        if directed && dst == Scalar::Half && from != Scalar::Half {
            return self.convert_to_half_directed(Val::new(x, src_t), to, rounding, span);
        }
        if directed && from == Scalar::Double && dst == Scalar::Float {
            return Some(Val::new(
                self.double_to_float_directed(x, &src_t, id, to, rounding),
                to.clone(),
            ));
        }
        if inexact_source && directed {
            return Some(Val::new(
                self.directed_rounding(x, &src_t, id, to, rounding),
                to.clone(),
            ));
        }
        Some(Val::new(id, to.clone()))
    }

    /// `convert_half_rtz/_rtp/_rtn` (and vectors) of any other arithmetic
    /// type: integers are first converted to float in the same mode (a
    /// directed rounding onto float's grid, which holds half's, changes
    /// nothing of the second one), then each component is rounded on its
    /// bits and the exact half value built from them.
    fn convert_to_half_directed(
        &mut self,
        v: Val,
        to: &Type,
        rounding: Rounding,
        span: Span,
    ) -> R<Val> {
        let from = v.ty.elem_scalar()?;
        let n = to.width();
        let v = if from.is_float() {
            v
        } else {
            let ft = to.with_elem(Scalar::Float);
            self.convert_builtin(v, &ft, false, rounding, span)?
        };
        let src = v.ty.elem_scalar()?;
        let et = self.sty(&Type::Scalar(src));
        let ht = self.sty(&Type::Scalar(Scalar::Half));
        let mut comps = Vec::new();
        for i in 0..n {
            let x = if n == 1 {
                v.id
            } else {
                self.op(Op::CompositeExtract, et, &[v.id, i])
            };
            let bits = self.half_from(x, src, rounding);
            let exact = self.half_to_float(bits);
            comps.push(self.op(Op::FConvert, ht, &[exact]));
        }
        Some(self.value_of_components(&comps, to))
    }

    /// The value of type `t` (a scalar or a vector) with components `comps`.
    fn value_of_components(&mut self, comps: &[Word], t: &Type) -> Val {
        if let [one] = comps {
            return Val::new(*one, t.clone());
        }
        let ty = self.sty(t);
        Val::new(self.op(Op::CompositeConstruct, ty, comps), t.clone())
    }

    /// `convert_float_rtz/_rtp/_rtn` of double `x`, computed on the bits:
    /// the float's significand is the double's truncated, plus one unit
    /// where the dropped bits are not zero and the mode rounds away from
    /// zero on that sign. No float arithmetic touches the result, so a
    /// result in the float denormal range comes out exact on devices that
    /// flush float denormals (NVIDIA), where stepping a rounded float
    /// would not. `f`, the default conversion, serves NaN and infinities.
    fn double_to_float_directed(
        &mut self,
        x: Word,
        src: &Type,
        f: Word,
        to: &Type,
        mode: Rounding,
    ) -> Word {
        let n = to.width();
        let bt = self.bool_ty(n);
        let lt = src.with_elem(Scalar::ULong);
        let ut = to.with_elem(Scalar::UInt);
        let lty = self.sty(&lt);
        let uty = self.sty(&ut);
        let lc = |s: &mut Self, v: u64| s.constant(&lt, ConstVal::Int(v as i64));
        let uc = |s: &mut Self, v: u32| s.constant(&ut, ConstVal::Int(v as i64));
        let bits = self.op(Op::Bitcast, lty, &[x]);
        let c63 = lc(self, 63);
        let sign = self.op(Op::ShiftRightLogical, lty, &[bits, c63]);
        let negative = {
            let zero = lc(self, 0);
            self.op(Op::INotEqual, bt, &[sign, zero])
        };
        let abs_mask = lc(self, u64::MAX >> 1);
        let a = self.op(Op::BitwiseAnd, lty, &[bits, abs_mask]);
        let c52 = lc(self, 52);
        let e = self.op(Op::ShiftRightLogical, lty, &[a, c52]);
        let m_mask = lc(self, (1 << 52) - 1);
        let m = self.op(Op::BitwiseAnd, lty, &[a, m_mask]);
        let zero = lc(self, 0);

        // Normal float range: biased exponent e - 896 in [1, 254].
        let c897 = lc(self, 897);
        let c1151 = lc(self, 1151);
        let is_normal = self.op(Op::UGreaterThanEqual, bt, &[e, c897]);
        let overflows = self.op(Op::UGreaterThanEqual, bt, &[e, c1151]);
        let c896 = lc(self, 896);
        let fe = self.op(Op::ISub, lty, &[e, c896]);
        let c23 = lc(self, 23);
        let fe = self.op(Op::ShiftLeftLogical, lty, &[fe, c23]);
        let c29 = lc(self, 29);
        let mhi = self.op(Op::ShiftRightLogical, lty, &[m, c29]);
        let normal = self.op(Op::BitwiseOr, lty, &[fe, mhi]);
        let low29 = lc(self, (1 << 29) - 1);
        let mlo = self.op(Op::BitwiseAnd, lty, &[m, low29]);
        let normal_inexact = self.op(Op::INotEqual, bt, &[mlo, zero]);

        // Denormal range: the significand with its leading bit, in units of
        // 2^-149, is S >> (926 - e); a double denormal (e = 0) is far below.
        let lead = lc(self, 1 << 52);
        let sig = self.op(Op::BitwiseOr, lty, &[m, lead]);
        let is_double_denormal = self.op(Op::IEqual, bt, &[e, zero]);
        let sig = self.op(Op::Select, lty, &[is_double_denormal, m, sig]);
        let c926 = lc(self, 926);
        let e_low = self.op(Op::Select, lty, &[is_normal, c896, e]);
        let shift = self.op(Op::ISub, lty, &[c926, e_low]);
        let shift = self.glsl(lty, glsl::UMIN, &[shift, c63]);
        let tiny = self.op(Op::ShiftRightLogical, lty, &[sig, shift]);
        let one = lc(self, 1);
        let unit = self.op(Op::ShiftLeftLogical, lty, &[one, shift]);
        let below = self.op(Op::ISub, lty, &[unit, one]);
        let dropped = self.op(Op::BitwiseAnd, lty, &[sig, below]);
        let tiny_inexact = self.op(Op::INotEqual, bt, &[dropped, zero]);

        let flt_max = lc(self, 0x7f7f_ffff);
        let trunc = self.op(Op::Select, lty, &[is_normal, normal, tiny]);
        let trunc = self.op(Op::Select, lty, &[overflows, flt_max, trunc]);
        let inexact = self.op(Op::Select, bt, &[is_normal, normal_inexact, tiny_inexact]);
        let inexact = self.op(Op::LogicalOr, bt, &[overflows, inexact]);
        let trunc32 = self.op(Op::UConvert, uty, &[trunc]);
        let away = match mode {
            Rounding::Rtp => {
                let positive = self.op(Op::LogicalNot, bt, &[negative]);
                Some(self.op(Op::LogicalAnd, bt, &[positive, inexact]))
            }
            Rounding::Rtn => Some(self.op(Op::LogicalAnd, bt, &[negative, inexact])),
            _ => None,
        };
        let mut r = trunc32;
        if let Some(away) = away {
            let up = uc(self, 1);
            let up = self.op(Op::IAdd, uty, &[trunc32, up]);
            r = self.op(Op::Select, uty, &[away, up, trunc32]);
        }
        let sign32 = self.op(Op::UConvert, uty, &[sign]);
        let c31 = uc(self, 31);
        let sign32 = self.op(Op::ShiftLeftLogical, uty, &[sign32, c31]);
        let r = self.op(Op::BitwiseOr, uty, &[r, sign32]);
        let fty = self.sty(to);
        let r = self.op(Op::Bitcast, fty, &[r]);
        // NaN and infinities: the biased exponent is all ones.
        let c2047 = lc(self, 2047);
        let special = self.op(Op::IEqual, bt, &[e, c2047]);
        self.op(Op::Select, fty, &[special, f, r])
    }

    /// Turns `f`, the round-to-nearest float of `x`, into the rounding
    /// `mode` asks for: one step of the float towards zero or an infinity
    /// where `f` passed `x` in the wrong direction.
    fn directed_rounding(
        &mut self,
        x: Word,
        src: &Type,
        f: Word,
        to: &Type,
        mode: Rounding,
    ) -> Word {
        let from = src.elem_scalar().unwrap_or(Scalar::Int);
        let dst = to.elem_scalar().unwrap_or(Scalar::Float);
        let n = to.width();
        let bt = self.bool_ty(n);
        let fty = self.sty(to);
        // Compare f with x exactly: in the source type for doubles, in 64
        // bits for integers (f may round up to 2^63 or 2^64 there).
        let (greater, less) = if from == Scalar::Double {
            let back = self.convert_elems(f, dst, Scalar::Double, n);
            (
                self.op(Op::FOrdGreaterThan, bt, &[back, x]),
                self.op(Op::FOrdLessThan, bt, &[back, x]),
            )
        } else {
            let wide = if from.is_signed() {
                Scalar::Long
            } else {
                Scalar::ULong
            };
            let xw = self.convert_elems(x, from, wide, n);
            let back = self.convert_elems(f, dst, wide, n);
            let (gt, lt) = if from.is_signed() {
                (Op::SGreaterThan, Op::SLessThan)
            } else {
                (Op::UGreaterThan, Op::ULessThan)
            };
            let mut greater = self.op(gt, bt, &[back, xw]);
            let mut less = self.op(lt, bt, &[back, xw]);
            if from.bits() == 64 {
                // f = 2^63 (or 2^64 unsigned) lies above every value of x.
                let top = if from.is_signed() {
                    2f64.powi(63)
                } else {
                    2f64.powi(64)
                };
                let topc = self.constant(to, ConstVal::Float(top));
                let over = self.op(Op::FOrdGreaterThanEqual, bt, &[f, topc]);
                // (Converting that f back to 64 bits overflows: its result
                // says nothing.)
                greater = self.op(Op::LogicalOr, bt, &[greater, over]);
                let within = self.op(Op::LogicalNot, bt, &[over]);
                less = self.op(Op::LogicalAnd, bt, &[less, within]);
            }
            (greater, less)
        };
        let zero = self.constant(to, ConstVal::Float(0.0));
        let positive = self.op(Op::FOrdGreaterThan, bt, &[f, zero]);
        let negative = self.op(Op::FOrdLessThan, bt, &[f, zero]);
        // Steps that shrink |f| (towards zero) and that grow it.
        let (shrink, grow) = match mode {
            Rounding::Rtz => {
                let a = self.op(Op::LogicalAnd, bt, &[positive, greater]);
                let b = self.op(Op::LogicalAnd, bt, &[negative, less]);
                (self.op(Op::LogicalOr, bt, &[a, b]), None)
            }
            Rounding::Rtp => {
                let s = self.op(Op::LogicalAnd, bt, &[negative, less]);
                let nonneg = self.op(Op::LogicalNot, bt, &[negative]);
                (s, Some(self.op(Op::LogicalAnd, bt, &[nonneg, less])))
            }
            _ => {
                let s = self.op(Op::LogicalAnd, bt, &[positive, greater]);
                let nonpos = self.op(Op::LogicalNot, bt, &[positive]);
                (s, Some(self.op(Op::LogicalAnd, bt, &[nonpos, greater])))
            }
        };
        let (ut, sign_bit) = if dst == Scalar::Double {
            (to.with_elem(Scalar::ULong), i64::MIN)
        } else {
            (to.with_elem(Scalar::UInt), 0x8000_0000)
        };
        let uty = self.sty(&ut);
        let bits = self.op(Op::Bitcast, uty, &[f]);
        let one = self.constant(&ut, ConstVal::Int(1));
        let down = self.op(Op::ISub, uty, &[bits, one]);
        let mut r = self.op(Op::Select, uty, &[shrink, down, bits]);
        if let Some(grow) = grow {
            // Growing from zero goes to the smallest subnormal of the sign
            // x has; from elsewhere one step away from zero.
            let up = self.op(Op::IAdd, uty, &[bits, one]);
            let is_zero = self.op(Op::FOrdEqual, bt, &[f, zero]);
            let tiny = self.constant(
                &ut,
                ConstVal::Int(if mode == Rounding::Rtp {
                    1
                } else {
                    sign_bit | 1
                }),
            );
            let up = self.op(Op::Select, uty, &[is_zero, tiny, up]);
            r = self.op(Op::Select, uty, &[grow, up, r]);
        }
        self.op(Op::Bitcast, fty, &[r])
    }

    /// Clamps integer `x` of type `t` into the range of `dst`, in `t`.
    fn saturate_int(&mut self, x: Word, t: &Type, dst: Scalar) -> Word {
        let src = match t.elem_scalar() {
            Some(s) => s,
            None => return x,
        };
        let ty = self.sty(t);
        let mut x = x;
        let (smin, smax) = int_range_i128(src);
        let (dmin, dmax) = int_range_i128(dst);
        if dmin > smin {
            let c = self.constant(t, ConstVal::Int(dmin as i64));
            x = self.glsl(
                ty,
                if src.is_signed() {
                    glsl::SMAX
                } else {
                    glsl::UMAX
                },
                &[x, c],
            );
        }
        if dmax < smax {
            let c = self.constant(t, ConstVal::Int(dmax as i64));
            x = self.glsl(
                ty,
                if src.is_signed() {
                    glsl::SMIN
                } else {
                    glsl::UMIN
                },
                &[x, c],
            );
        }
        x
    }

    fn as_type(&mut self, v: Val, to: &Type, span: Span) -> R<Val> {
        let (fs, ts) = (self.types.size(&v.ty), self.types.size(to));
        if fs != ts || !v.ty.is_arith() {
            let (a, b) = (self.types.name(&v.ty), self.types.name(to));
            self.error(
                span,
                format!("invalid reinterpretation: sizes of '{a}' and '{b}' must match"),
            );
            return None;
        }
        self.check_type_supported(to, span)?;
        let mut x = v.id;
        let mut from = v.ty.clone();
        if let Type::Vector(s, 3) = from {
            let t4 = Type::Vector(s, 4);
            let ty = self.sty(&t4);
            x = self.op(Op::VectorShuffle, ty, &[x, x, 0, 1, 2, 0xffff_ffff]);
            from = t4;
        }
        if (from.width() > 4 || to.width() > 4) && from.width() != to.width() {
            let to4 = match to {
                Type::Vector(s, 3) => Type::Vector(*s, 4),
                t => t.clone(),
            };
            let y = self.reinterpret_by_words(x, &from, &to4);
            if to4 == *to {
                return Some(Val::new(y, to.clone()));
            }
            let ty = self.sty(to);
            return Some(Val::new(
                self.op(Op::VectorShuffle, ty, &[y, y, 0, 1, 2]),
                to.clone(),
            ));
        }
        if let Type::Vector(s, 3) = to {
            let t4 = Type::Vector(*s, 4);
            let ty4 = self.sty(&t4);
            let y = self.op(Op::Bitcast, ty4, &[x]);
            let ty = self.sty(to);
            return Some(Val::new(
                self.op(Op::VectorShuffle, ty, &[y, y, 0, 1, 2]),
                to.clone(),
            ));
        }
        let ty = self.sty(to);
        Some(Val::new(self.op(Op::Bitcast, ty, &[x]), to.clone()))
    }

    // ---- everything else -------------------------------------------------------------

    fn int_gentype(&mut self, vals: &[Val], span: Span, name: &str) -> R<Type> {
        let t = self.gentype(vals, span)?;
        if !t.is_integer() {
            // Floating scalars beside integer arguments of one type convert
            // to it, as overload resolution in C picks the integer overload
            // that the integer arguments match exactly (OpenCV's Hough
            // transform calls `mad24(p.y, step, p.x + offset)` with a
            // `float2 p`). Floating vectors do not convert implicitly, and
            // floating arguments alone match no overload better than the
            // others.
            let mut integers = vals.iter().filter(|v| v.ty.is_integer()).map(|v| &v.ty);
            let only_float_scalars = vals
                .iter()
                .all(|v| v.ty.is_integer() || (v.ty.is_float() && !v.ty.is_vector()));
            if let Some(first) = integers.next() {
                if only_float_scalars && integers.all(|t| t == first) {
                    return Some(first.clone());
                }
            }
            self.error(span, format!("'{name}' needs integer arguments"));
            return None;
        }
        Some(t)
    }

    fn special(&mut self, name: &'static str, vals: Vec<Val>, span: Span) -> R<Val> {
        // The extensions' families, named by their modules.
        if let Some(op) = bit_ops::BitOp::from_name(name) {
            return self.extended_bit_op(op, name, vals, span);
        }
        if clock::clock_read(name).is_some() {
            return self.read_clock(name, span);
        }
        if integer_dot::is_integer_dot(name, &vals) {
            return self.integer_dot(name, vals, span);
        }
        match name {
            "fmod" => self.library_math("__ferrocl_fmod", None, vals, name, span),
            "hypot" => self.library_math("__ferrocl_hypot", None, vals, name, span),
            "remainder" => self.library_math("__ferrocl_remainder", None, vals, name, span),
            "remquo" => {
                self.with_int_output("__ferrocl_remainder", "__ferrocl_remquo_quo", vals, span)
            }
            "round" | "copysign" | "fdim" | "mad" => {
                let t = self.float_gentype(&vals, span)?;
                let ids = self.convert_all(vals, &t, span)?;
                let ty = self.sty(&t);
                let id = match name {
                    "round" => {
                        // Halfway cases round away from zero.
                        let x = ids[0];
                        let tr = self.glsl(ty, glsl::TRUNC, &[x]);
                        let d = self.op(Op::FSub, ty, &[x, tr]);
                        let ad = self.glsl(ty, glsl::FABS, &[d]);
                        let half = self.constant(&t, ConstVal::Float(0.5));
                        let bt = self.bool_ty(t.width());
                        let up = self.op(Op::FOrdGreaterThanEqual, bt, &[ad, half]);
                        let sg = self.glsl(ty, glsl::FSIGN, &[x]);
                        let away = self.op(Op::FAdd, ty, &[tr, sg]);
                        self.op(Op::Select, ty, &[up, away, tr])
                    }
                    "copysign" => {
                        let s = t.elem_scalar()?;
                        let it = t.with_elem(Scalar::int(s.bits(), false));
                        let ity = self.sty(&it);
                        let xa = self.op(Op::Bitcast, ity, &[ids[0]]);
                        let ya = self.op(Op::Bitcast, ity, &[ids[1]]);
                        let sign =
                            self.constant(&it, ConstVal::Int(1i64.wrapping_shl(s.bits() - 1)));
                        let mag = self.op(Op::Not, ity, &[sign]);
                        let xm = self.op(Op::BitwiseAnd, ity, &[xa, mag]);
                        let ys = self.op(Op::BitwiseAnd, ity, &[ya, sign]);
                        let r = self.op(Op::BitwiseOr, ity, &[xm, ys]);
                        self.op(Op::Bitcast, ty, &[r])
                    }
                    "fdim" => {
                        let d = self.op(Op::FSub, ty, &[ids[0], ids[1]]);
                        let zero = self.constant(&t, ConstVal::Float(0.0));
                        let bt = self.bool_ty(t.width());
                        let le = self.op(Op::FOrdLessThanEqual, bt, &[ids[0], ids[1]]);
                        self.op(Op::Select, ty, &[le, zero, d])
                    }
                    // mad: fused or not, as the device does it fastest.
                    _ => self.glsl(ty, glsl::FMA, &[ids[0], ids[1], ids[2]]),
                };
                Some(Val::new(id, t))
            }
            "pown" | "ldexp" => {
                let mut vals = vals;
                let n = vals.remove(1);
                let x = vals.remove(0);
                let t = self.float_gentype(std::slice::from_ref(&x), span)?;
                let x = self.convert(x, &t, span, false)?;
                let it = t.with_elem(Scalar::Int);
                let n = self.convert(n, &it, span, false)?;
                if name == "ldexp" {
                    let lib = if t.elem_scalar()? == Scalar::Double {
                        "__ferrocl_ldexp_f64"
                    } else {
                        "__ferrocl_ldexp"
                    };
                    let Some(f) = self.funcs.get(lib).copied() else {
                        self.error(span, "'ldexp' is not supported for this type yet");
                        return None;
                    };
                    return self.call_on_float(f, &t, x.id, Some((n.id, it)), span);
                }
                // pown: the float versions take n as an int, so a large odd
                // n keeps its parity; double converts n exactly.
                let s = t.elem_scalar()?;
                if s == Scalar::Double {
                    let nf = self.convert_elems(n.id, Scalar::Int, s, t.width());
                    let Some(f) = self.funcs.get("__ferrocl_pow_f64").copied() else {
                        self.error(span, "'pown' is not supported for double yet");
                        return None;
                    };
                    return self.call_library(f, &t, &[x.id, nf], span);
                }
                let names = ["__ferrocl_pown_ff64", "__ferrocl_pown"];
                let Some(f) = names.iter().find_map(|n| self.funcs.get(n).copied()) else {
                    self.error(span, format!("'pown' is not supported for {s} yet"));
                    return None;
                };
                self.call_on_float(f, &t, x.id, Some((n.id, it)), span)
            }
            "ilogb" | "rootn" => {
                // Library functions taking or giving an int beside the float.
                let mut vals = vals;
                let n = if name == "rootn" { vals.pop() } else { None };
                let x = vals.pop()?;
                let t = self.float_gentype(std::slice::from_ref(&x), span)?;
                let s = t.elem_scalar()?;
                let x = self.convert(x, &t, span, false)?;
                let it = t.with_elem(Scalar::Int);
                let n = match n {
                    Some(n) => Some((self.convert(n, &it, span, false)?.id, it.clone())),
                    None => None,
                };
                let names: &[&str] = match (name, s) {
                    ("rootn", Scalar::Double) => &["__ferrocl_rootn_f64"],
                    ("rootn", _) => &["__ferrocl_rootn_ff64", "__ferrocl_rootn"],
                    (_, Scalar::Double) => &["__ferrocl_ilogb_f64"],
                    _ => &["__ferrocl_ilogb"],
                };
                let Some(f) = names.iter().find_map(|n| self.funcs.get(n).copied()) else {
                    self.error(span, format!("'{name}' is not supported for {s} yet"));
                    return None;
                };
                if name == "rootn" {
                    return self.call_on_float(f, &t, x.id, n, span);
                }
                // ilogb: an int per component, whatever x's type.
                let xf = self.widen_half(x.id, &t);
                let xt = if s == Scalar::Half {
                    t.with_elem(Scalar::Float)
                } else {
                    t.clone()
                };
                self.call_library_typed(f, &it, &[(xf, xt)], span)
            }
            "mad_sat" => {
                let t = self.int_gentype(&vals, span, name)?;
                let ids = self.convert_all(vals, &t, span)?;
                let s = t.elem_scalar()?;
                if s.bits() == 64 {
                    let func = if s.is_signed() {
                        "__ferrocl_mad_sat_i64"
                    } else {
                        "__ferrocl_mad_sat_u64"
                    };
                    let Some(f) = self.funcs.get(func).copied() else {
                        self.error(
                            span,
                            "internal compiler error: the built-in library lacks mad_sat",
                        );
                        return None;
                    };
                    return self.call_library(f, &t, &ids, span);
                }
                let n = t.width();
                // a * b + c fits 64 bits for every narrower type.
                let wide = if s.is_signed() {
                    Scalar::Long
                } else {
                    Scalar::ULong
                };
                let wt = t.with_elem(wide);
                let wty = self.sty(&wt);
                let w: Vec<Word> = ids
                    .iter()
                    .map(|&id| self.convert_elems(id, s, wide, n))
                    .collect();
                let p = self.op(Op::IMul, wty, &[w[0], w[1]]);
                let r = self.op(Op::IAdd, wty, &[p, w[2]]);
                let lo = self.constant(&wt, ConstVal::Int(int_min(s)));
                let hi = self.constant(&wt, ConstVal::Int(int_max(s)));
                let c = if s.is_signed() {
                    self.glsl(wty, glsl::SCLAMP, &[r, lo, hi])
                } else {
                    self.glsl(wty, glsl::UMIN, &[r, hi])
                };
                Some(Val::new(self.convert_elems(c, wide, s, n), t))
            }
            "abs" => {
                let v = vals.into_iter().next()?;
                let t = v.ty.clone();
                if t.is_float() {
                    let ty = self.sty(&t);
                    return Some(Val::new(self.glsl(ty, glsl::FABS, &[v.id]), t));
                }
                let s = t.elem_scalar()?;
                let ut = t.with_elem(s.to_unsigned());
                if !s.is_signed() {
                    return Some(Val::new(v.id, ut));
                }
                let ty = self.sty(&t);
                Some(Val::new(self.glsl(ty, glsl::SABS, &[v.id]), ut))
            }
            "abs_diff" => {
                let t = self.int_gentype(&vals, span, name)?;
                let ids = self.convert_all(vals, &t, span)?;
                let s = t.elem_scalar()?;
                let ty = self.sty(&t);
                let bt = self.bool_ty(t.width());
                let gt = self.op(
                    if s.is_signed() {
                        Op::SGreaterThan
                    } else {
                        Op::UGreaterThan
                    },
                    bt,
                    &[ids[0], ids[1]],
                );
                let a = self.op(Op::ISub, ty, &[ids[0], ids[1]]);
                let b = self.op(Op::ISub, ty, &[ids[1], ids[0]]);
                let r = self.op(Op::Select, ty, &[gt, a, b]);
                Some(Val::new(r, t.with_elem(s.to_unsigned())))
            }
            "mad24" | "mul24" => {
                let t = self.int_gentype(&vals, span, name)?;
                let ids = self.convert_all(vals, &t, span)?;
                let ty = self.sty(&t);
                let m = self.op(Op::IMul, ty, &[ids[0], ids[1]]);
                let r = if name == "mad24" {
                    self.op(Op::IAdd, ty, &[m, ids[2]])
                } else {
                    m
                };
                Some(Val::new(r, t))
            }
            "popcount" | "clz" | "ctz" => {
                let v = vals.into_iter().next()?;
                if !v.ty.is_integer() {
                    self.error(span, format!("'{name}' needs an integer argument"));
                    return None;
                }
                let t = v.ty.clone();
                let id = self.bit_count(name, v.id, &t);
                Some(Val::new(id, t))
            }
            "__builtin_expect" => {
                // `long __builtin_expect(long exp, long c)`: the value of
                // `exp`; `c`, the value expected, is only a hint.
                let exp = vals.into_iter().next()?;
                self.convert(exp, &Type::LONG, span, false)
            }
            "rotate" => {
                let t = self.int_gentype(&vals, span, name)?;
                let ids = self.convert_all(vals, &t, span)?;
                let s = t.elem_scalar()?;
                if s.bits() == 64 && self.caps.rotate64_in_halves {
                    // Left by n is right by -n (mod 64).
                    let ut = Type::vector_or_scalar(Scalar::UInt, t.width());
                    let uty = self.sty(&ut);
                    let n = self.op(Op::UConvert, uty, &[ids[1]]);
                    let r = self.op(Op::SNegate, uty, &[n]);
                    // `long` and `ulong` are one SPIR-V type.
                    let id = self.rotate_right_in_halves(ids[0], r, &t);
                    return Some(Val::new(id, t));
                }
                let ty = self.sty(&t);
                let mask = self.constant(&t, ConstVal::Int(s.bits() as i64 - 1));
                let bits = self.constant(&t, ConstVal::Int(s.bits() as i64));
                let n = self.op(Op::BitwiseAnd, ty, &[ids[1], mask]);
                let l = self.op(Op::ShiftLeftLogical, ty, &[ids[0], n]);
                let rn = self.op(Op::ISub, ty, &[bits, n]);
                let rn = self.op(Op::BitwiseAnd, ty, &[rn, mask]);
                let r = self.op(Op::ShiftRightLogical, ty, &[ids[0], rn]);
                // A rotate by 0 must not OR in the unshifted value twice.
                let bt = self.bool_ty(t.width());
                let zero = self.constant(&t, ConstVal::Int(0));
                let is0 = self.op(Op::IEqual, bt, &[n, zero]);
                let r = self.op(Op::Select, ty, &[is0, zero, r]);
                Some(Val::new(self.op(Op::BitwiseOr, ty, &[l, r]), t))
            }
            "add_sat" | "sub_sat" => {
                let t = self.int_gentype(&vals, span, name)?;
                let ids = self.convert_all(vals, &t, span)?;
                let id = self.saturating(name == "add_sat", ids[0], ids[1], &t);
                Some(Val::new(id, t))
            }
            "hadd" | "rhadd" => {
                let t = self.int_gentype(&vals, span, name)?;
                let ids = self.convert_all(vals, &t, span)?;
                let s = t.elem_scalar()?;
                let ty = self.sty(&t);
                let one = self.constant(&t, ConstVal::Int(1));
                let sh = if s.is_signed() {
                    Op::ShiftRightArithmetic
                } else {
                    Op::ShiftRightLogical
                };
                let a = self.op(sh, ty, &[ids[0], one]);
                let b = self.op(sh, ty, &[ids[1], one]);
                let sum = self.op(Op::IAdd, ty, &[a, b]);
                let c = self.op(
                    if name == "hadd" {
                        Op::BitwiseAnd
                    } else {
                        Op::BitwiseOr
                    },
                    ty,
                    &[ids[0], ids[1]],
                );
                let c = self.op(Op::BitwiseAnd, ty, &[c, one]);
                Some(Val::new(self.op(Op::IAdd, ty, &[sum, c]), t))
            }
            "mul_hi" | "mad_hi" => {
                let t = self.int_gentype(&vals, span, name)?;
                let ids = self.convert_all(vals, &t, span)?;
                let hi = self.mul_hi(ids[0], ids[1], &t);
                let ty = self.sty(&t);
                let r = if name == "mad_hi" {
                    self.op(Op::IAdd, ty, &[hi, ids[2]])
                } else {
                    hi
                };
                Some(Val::new(r, t))
            }
            "upsample" => {
                let mut vals = vals;
                let lo = vals.remove(1);
                let hi = vals.remove(0);
                let s = hi.ty.elem_scalar()?;
                if !s.is_integer()
                    || s.bits() == 64
                    || lo.ty.elem_scalar().map(|x| x.bits()) != Some(s.bits())
                {
                    self.error(
                        span,
                        "upsample needs 8-, 16- or 32-bit integers of one size",
                    );
                    return None;
                }
                let wide = Scalar::int(s.bits() * 2, s.is_signed());
                let wt = hi.ty.with_elem(wide);
                let n = hi.ty.width();
                let ty = self.sty(&wt);
                let h = self.convert_elems(hi.id, s, wide, n);
                let l = self.convert_elems(
                    lo.id,
                    lo.ty.elem_scalar()?.to_unsigned(),
                    wide.to_unsigned(),
                    n,
                );
                let sh = self.constant(&wt, ConstVal::Int(s.bits() as i64));
                let h = self.op(Op::ShiftLeftLogical, ty, &[h, sh]);
                Some(Val::new(self.op(Op::BitwiseOr, ty, &[h, l]), wt))
            }
            "length" | "normalize" | "distance" => self.geometric(name, vals, span),
            "dot" | "cross" => {
                let t = self.float_gentype(&vals, span)?;
                let ids = self.convert_all(vals, &t, span)?;
                let s = t.elem_scalar()?;
                let st = Type::Scalar(s);
                let sty = self.sty(&st);
                let ty = self.sty(&t);
                match name {
                    "dot" => {
                        let id = if t.is_vector() {
                            self.op(Op::Dot, sty, &[ids[0], ids[1]])
                        } else {
                            self.op(Op::FMul, sty, &[ids[0], ids[1]])
                        };
                        Some(Val::new(id, st))
                    }
                    "cross" => match t.width() {
                        3 => Some(Val::new(self.glsl(ty, glsl::CROSS, &[ids[0], ids[1]]), t)),
                        4 => {
                            let t3 = Type::Vector(s, 3);
                            let ty3 = self.sty(&t3);
                            let a = self.op(Op::VectorShuffle, ty3, &[ids[0], ids[0], 0, 1, 2]);
                            let b = self.op(Op::VectorShuffle, ty3, &[ids[1], ids[1], 0, 1, 2]);
                            let c = self.glsl(ty3, glsl::CROSS, &[a, b]);
                            let zero = self.constant(&st, ConstVal::Float(0.0));
                            let e: Vec<Word> = (0..3)
                                .map(|i| self.op(Op::CompositeExtract, sty, &[c, i]))
                                .collect();
                            let r = self.op(Op::CompositeConstruct, ty, &[e[0], e[1], e[2], zero]);
                            Some(Val::new(r, t))
                        }
                        _ => {
                            self.error(span, "cross needs 3- or 4-component vectors");
                            None
                        }
                    },
                    _ => {
                        self.error(span, format!("'{name}' is not a geometric built-in"));
                        None
                    }
                }
            }
            "prefetch" => Some(Val::new(0, Type::Void)),
            "shuffle" | "shuffle2" => self.shuffle(name == "shuffle2", vals, span),
            "lgamma_r" => {
                self.with_int_output("__ferrocl_lgamma", "__ferrocl_gamma_sign", vals, span)
            }
            "sincos" => self.sincos(vals, span),
            "fract" | "modf" | "frexp" => self.math_with_outputs(name, vals, span),
            "async_copy" | "async_strided_copy" => self.async_copy(vals, span),
            "maxmag" | "minmag" | "divide" | "recip" => {
                let t = self.float_gentype(&vals, span)?;
                let ids = self.convert_all(vals, &t, span)?;
                let ty = self.sty(&t);
                let id = match name {
                    // half_divide and native_divide: the range of the
                    // division operator, which costs nothing of their bound.
                    "divide" if t.elem_scalar() == Some(Scalar::Float) => {
                        self.float_division(&t, ids[0], ids[1])
                    }
                    "divide" => self.op(Op::FDiv, ty, &[ids[0], ids[1]]),
                    "recip" => {
                        let one = self.constant(&t, ConstVal::Float(1.0));
                        self.op(Op::FDiv, ty, &[one, ids[0]])
                    }
                    _ => {
                        let ax = self.glsl(ty, glsl::FABS, &[ids[0]]);
                        let ay = self.glsl(ty, glsl::FABS, &[ids[1]]);
                        let bt = self.bool_ty(t.width());
                        let (first, second) = if name == "maxmag" {
                            (Op::FOrdGreaterThan, Op::FOrdLessThan)
                        } else {
                            (Op::FOrdLessThan, Op::FOrdGreaterThan)
                        };
                        let pick_x = self.op(first, bt, &[ax, ay]);
                        let pick_y = self.op(second, bt, &[ax, ay]);
                        let tie_op = if name == "maxmag" {
                            glsl::NMAX
                        } else {
                            glsl::NMIN
                        };
                        let tie = self.glsl(ty, tie_op, &[ids[0], ids[1]]);
                        let r = self.op(Op::Select, ty, &[pick_y, ids[1], tie]);
                        self.op(Op::Select, ty, &[pick_x, ids[0], r])
                    }
                };
                Some(Val::new(id, t))
            }
            "nan" => {
                let v = vals.into_iter().next()?;
                let s = v.ty.elem_scalar()?;
                if !s.is_integer() {
                    self.error(span, "nan needs an unsigned integer argument");
                    return None;
                }
                let ft = match s.bits() {
                    64 => Scalar::Double,
                    16 => Scalar::Half,
                    _ => Scalar::Float,
                };
                let t = v.ty.with_elem(ft);
                self.check_type_supported(&t, span)?;
                let it = v.ty.with_elem(Scalar::int(ft.bits(), false));
                let ity = self.sty(&it);
                let quiet = match ft.bits() {
                    64 => 0x7ff8_0000_0000_0000u64 as i64,
                    16 => 0x7e00,
                    _ => 0x7fc0_0000,
                };
                let q = self.constant(&it, ConstVal::Int(quiet));
                let bits = self.convert_elems(v.id, s, it.elem_scalar()?, it.width());
                let r = self.op(Op::BitwiseOr, ity, &[bits, q]);
                let ty = self.sty(&t);
                Some(Val::new(self.op(Op::Bitcast, ty, &[r]), t))
            }
            "isnormal" => {
                let t = self.float_gentype(&vals, span)?;
                let ids = self.convert_all(vals, &t, span)?;
                let ty = self.sty(&t);
                let bt = self.bool_ty(t.width());
                let a = self.glsl(ty, glsl::FABS, &[ids[0]]);
                let s = t.elem_scalar()?;
                let min = match s {
                    Scalar::Double => f64::MIN_POSITIVE,
                    Scalar::Half => 6.103515625e-5,
                    _ => f32::MIN_POSITIVE as f64,
                };
                let minc = self.constant(&t, ConstVal::Float(min));
                let big = self.op(Op::FOrdGreaterThanEqual, bt, &[a, minc]);
                let inf = self.op(Op::IsInf, bt, &[ids[0]]);
                let fin = self.op(Op::LogicalNot, bt, &[inf]);
                let b = self.op(Op::LogicalAnd, bt, &[big, fin]);
                Some(self.bool_to_relational(b, &t))
            }
            "isnan" | "isinf" | "isfinite" | "signbit" => {
                let t = self.float_gentype(&vals, span)?;
                let ids = self.convert_all(vals, &t, span)?;
                let bt = self.bool_ty(t.width());
                let b = match name {
                    "isnan" => self.op(Op::IsNan, bt, &[ids[0]]),
                    "isinf" => self.op(Op::IsInf, bt, &[ids[0]]),
                    "isfinite" => {
                        let a = self.op(Op::IsNan, bt, &[ids[0]]);
                        let b = self.op(Op::IsInf, bt, &[ids[0]]);
                        let o = self.op(Op::LogicalOr, bt, &[a, b]);
                        self.op(Op::LogicalNot, bt, &[o])
                    }
                    _ => {
                        let s = t.elem_scalar()?;
                        let it = t.with_elem(Scalar::int(s.bits(), true));
                        let ity = self.sty(&it);
                        let bits = self.op(Op::Bitcast, ity, &[ids[0]]);
                        let zero = self.constant(&it, ConstVal::Int(0));
                        self.op(Op::SLessThan, bt, &[bits, zero])
                    }
                };
                Some(self.bool_to_relational(b, &t))
            }
            "isequal" | "isnotequal" | "isgreater" | "isgreaterequal" | "isless"
            | "islessequal" | "islessgreater" | "isordered" | "isunordered" => {
                let t = self.float_gentype(&vals, span)?;
                let ids = self.convert_all(vals, &t, span)?;
                let bt = self.bool_ty(t.width());
                let b = match name {
                    "isordered" | "isunordered" => {
                        let a = self.op(Op::IsNan, bt, &[ids[0]]);
                        let b = self.op(Op::IsNan, bt, &[ids[1]]);
                        let u = self.op(Op::LogicalOr, bt, &[a, b]);
                        if name == "isordered" {
                            self.op(Op::LogicalNot, bt, &[u])
                        } else {
                            u
                        }
                    }
                    _ => {
                        let o = match name {
                            "isequal" => Op::FOrdEqual,
                            "isnotequal" => Op::FUnordNotEqual,
                            "isgreater" => Op::FOrdGreaterThan,
                            "isgreaterequal" => Op::FOrdGreaterThanEqual,
                            "isless" => Op::FOrdLessThan,
                            "islessequal" => Op::FOrdLessThanEqual,
                            _ => Op::FOrdNotEqual,
                        };
                        self.op(o, bt, &[ids[0], ids[1]])
                    }
                };
                Some(self.bool_to_relational(b, &t))
            }
            "any" | "all" => {
                let v = vals.into_iter().next()?;
                if !v.ty.is_integer() {
                    self.error(span, format!("'{name}' needs a signed integer argument"));
                    return None;
                }
                let s = v.ty.elem_scalar()?.signed_int_of_size();
                let t = v.ty.with_elem(s);
                let zero = self.constant(&t, ConstVal::Int(0));
                let bt = self.bool_ty(t.width());
                let neg = self.op(Op::SLessThan, bt, &[v.id, zero]);
                let b = if t.is_vector() {
                    let b1 = self.bool_ty(1);
                    self.op(if name == "any" { Op::Any } else { Op::All }, b1, &[neg])
                } else {
                    neg
                };
                Some(self.bool_to_relational(b, &Type::INT))
            }
            "select" => {
                let mut vals = vals;
                let c = vals.remove(2);
                let b = vals.remove(1);
                let a = vals.remove(0);
                if c.ty.is_vector() {
                    return self.vector_select(c, b, a, span);
                }
                let cb = self.convert(c, &Type::BOOL, span, false)?;
                let t = self.gentype(&[a.clone(), b.clone()], span)?;
                let ids = self.convert_all(vec![a, b], &t, span)?;
                let ty = self.sty(&t);
                Some(Val::new(
                    self.op(Op::Select, ty, &[cb.id, ids[1], ids[0]]),
                    t,
                ))
            }
            "bitselect" => {
                let t = self.gentype(&vals, span)?;
                let ids = self.convert_all(vals, &t, span)?;
                let s = t.elem_scalar()?;
                let it = t.with_elem(Scalar::int(s.bits(), false));
                let ity = self.sty(&it);
                let ty = self.sty(&t);
                let cast = |l: &mut Self, id: Word| {
                    if s.is_float() {
                        l.op(Op::Bitcast, ity, &[id])
                    } else {
                        id
                    }
                };
                let (a, b, c) = (cast(self, ids[0]), cast(self, ids[1]), cast(self, ids[2]));
                // `a ^ ((a ^ b) & c)`: b where c has a bit set, a elsewhere,
                // in the shape NVIDIA's Vulkan compiler makes one logic
                // instruction of (lower/majority.rs).
                let ab = self.op(Op::BitwiseXor, ity, &[a, b]);
                let picked = self.op(Op::BitwiseAnd, ity, &[ab, c]);
                let r = self.op(Op::BitwiseXor, ity, &[a, picked]);
                let r = if s.is_float() {
                    self.op(Op::Bitcast, ty, &[r])
                } else {
                    r
                };
                Some(Val::new(r, t))
            }
            _ => {
                self.error(span, format!("built-in '{name}' is not supported yet"));
                None
            }
        }
    }

    /// `async_work_group_copy` and the strided form: the work-items of the
    /// group copy the elements between them, in a loop strided by the
    /// group's size; `wait_group_events` then completes the copy.
    fn async_copy(&mut self, mut vals: Vec<Val>, span: Span) -> R<Val> {
        let event = vals.pop()?;
        let stride = if vals.len() == 4 { vals.pop() } else { None };
        let count = vals.pop()?;
        let src = vals.pop()?;
        let dst = vals.pop()?;
        let (Some(de), Some(se)) = (dst.ty.pointee().cloned(), src.ty.pointee().cloned()) else {
            self.error(span, "async copies need pointer arguments");
            return None;
        };
        if de != se {
            self.error(span, "async copy source and destination types differ");
            return None;
        }
        let to_local = matches!(dst.ty, Type::Pointer(_, AddrSpace::Local, _));
        let ul = Type::ULONG;
        let ult = self.sty(&ul);
        let count = self.convert(count, &ul, span, false)?;
        let stride = match stride {
            Some(s) => Some(self.convert(s, &ul, span, false)?),
            None => None,
        };
        let lid = self.work_item(WorkItem::LocalLinearId, None, None, span)?;
        let mut group = None;
        for d in 0..3 {
            let dv = self.const_val(&Type::UINT, d);
            let ls = self.work_item(WorkItem::LocalSize, Some(dv), Some(d), span)?;
            group = Some(match group {
                None => ls.id,
                Some(g) => self.op(Op::IMul, ult, &[g, ls.id]),
            });
        }
        let group = group?;
        let index = self.new_function_var(&ul);
        self.op_void(Op::Store, &[index, lid.id]);
        self.counted_loop(index, ult, count.id, group, |l, i| {
            let iv = Val::new(i, ul.clone());
            let strided = match &stride {
                Some(s) => Val::new(l.op(Op::IMul, ult, &[i, s.id]), ul.clone()),
                None => iv.clone(),
            };
            let (si, di) = if to_local {
                (strided, iv)
            } else {
                (iv, strided)
            };
            let sp = l.pointer_add(src.clone(), si, false, span)?;
            let dp = l.pointer_add(dst.clone(), di, false, span)?;
            let from = l.deref(sp, span)?;
            let to = l.deref(dp, span)?;
            let v = l.load(&from, span)?;
            l.store(&to, &v, span);
            Some(())
        })?;
        let event = match event.ty.scalar() {
            Some(s) if s.is_integer() => self.convert_elems(event.id, s, Scalar::ULong, 1),
            _ => event.id,
        };
        Some(Val::new(event, Type::Opaque("event_t")))
    }

    /// `shuffle(x, mask)` and `shuffle2(x, y, mask)`: component i of the
    /// result is the component of x (then y) that the low bits of mask[i]
    /// select.
    fn shuffle(&mut self, two: bool, mut vals: Vec<Val>, span: Span) -> R<Val> {
        let mask = vals.pop()?;
        let (x, y) = if two {
            let y = vals.pop()?;
            (vals.pop()?, Some(y))
        } else {
            (vals.pop()?, None)
        };
        let (Type::Vector(s, m), Type::Vector(ms, n)) = (x.ty.clone(), mask.ty.clone()) else {
            self.error(span, "shuffle needs vector arguments");
            return None;
        };
        if !ms.is_integer() || ms.is_signed() || ms.bits() != s.bits() {
            self.error(
                span,
                "the shuffle mask must be an unsigned integer vector of the element size",
            );
            return None;
        }
        if let Some(y) = &y {
            if y.ty != x.ty {
                self.error(span, "shuffle2 needs two vectors of one type");
                return None;
            }
        }
        let m = m as u32;
        let u = self.m.ty(TypeKey::Int(32));
        let et = self.sty(&Type::Scalar(s));
        let mst = self.sty(&Type::Scalar(ms));
        let bt = self.bool_ty(1);
        let bits = if two { 2 * m - 1 } else { m - 1 };
        let mut comps = Vec::new();
        for i in 0..n as u32 {
            let raw = self.op(Op::CompositeExtract, mst, &[mask.id, i]);
            let raw = self.convert_elems(raw, ms, Scalar::UInt, 1);
            let b = self.u32c(bits);
            let idx = self.op(Op::BitwiseAnd, u, &[raw, b]);
            let mc = self.u32c(m - 1);
            let within = self.op(Op::BitwiseAnd, u, &[idx, mc]);
            let from_x = self.op(Op::VectorExtractDynamic, et, &[x.id, within]);
            let c = match &y {
                Some(y) => {
                    let from_y = self.op(Op::VectorExtractDynamic, et, &[y.id, within]);
                    let mv = self.u32c(m);
                    let in_x = self.op(Op::ULessThan, bt, &[idx, mv]);
                    self.op(Op::Select, et, &[in_x, from_x, from_y])
                }
                None => from_x,
            };
            comps.push(c);
        }
        let t = Type::Vector(s, n);
        let ty = self.sty(&t);
        Some(Val::new(self.op(Op::CompositeConstruct, ty, &comps), t))
    }

    /// x widened to float when `t` is a half type (exactly), else x.
    fn widen_half(&mut self, x: Word, t: &Type) -> Word {
        if t.elem_scalar() == Some(Scalar::Half) {
            self.convert_elems(x, Scalar::Half, Scalar::Float, t.width())
        } else {
            x
        }
    }

    /// Library function `f` of (x, int n) per component, with `t` x's and
    /// the result's type: half goes through the float function and is
    /// rounded once on the way back.
    fn call_on_float(
        &mut self,
        f: &'a FuncDef,
        t: &Type,
        x: Word,
        n: Option<(Word, Type)>,
        span: Span,
    ) -> R<Val> {
        let half = t.elem_scalar() == Some(Scalar::Half);
        let work = if half {
            t.with_elem(Scalar::Float)
        } else {
            t.clone()
        };
        let xf = self.widen_half(x, t);
        let mut args = vec![(xf, work.clone())];
        args.extend(n);
        let r = self.call_library_typed(f, &work, &args, span)?;
        if half {
            let id = self.convert_elems(r.id, Scalar::Float, Scalar::Half, t.width());
            return Some(Val::new(id, t.clone()));
        }
        Some(r)
    }

    /// Math functions with a second result stored through a pointer:
    /// fract, modf, frexp, remquo, sincos; and remainder.
    fn math_with_outputs(&mut self, name: &str, mut vals: Vec<Val>, span: Span) -> R<Val> {
        let out = vals.pop();
        let t = self.float_gentype(&vals, span)?;
        let s = t.elem_scalar()?;
        let ids = self.convert_all(vals, &t, span)?;
        // Half is computed on float: every result of these three is exact
        // in half again.
        let work = if s == Scalar::Half {
            t.with_elem(Scalar::Float)
        } else {
            t.clone()
        };
        let x = self.convert_elems(ids[0], s, work.elem_scalar()?, t.width());
        // fract's largest result: the value below 1 in the caller's type.
        let below_one = match s {
            Scalar::Double => f64::from_bits(0x3fef_ffff_ffff_ffff),
            Scalar::Half => 1.0 - 2f64.powi(-11),
            _ => f64::from(f32::from_bits(0x3f7f_ffff)),
        };
        let (mut result, mut second, mut second_ty) = self.split_float(name, x, &work, below_one);
        if s == Scalar::Half {
            result = self.convert_elems(result, Scalar::Float, Scalar::Half, t.width());
            if name != "frexp" {
                second = self.convert_elems(second, Scalar::Float, Scalar::Half, t.width());
                second_ty = t.clone();
            }
        }
        if let Some(p) = out {
            if p.ty.pointee() != Some(&second_ty) {
                let (a, b) = (self.types.name(&p.ty), self.types.name(&second_ty));
                self.error(
                    span,
                    format!("'{name}' stores a {b} through its pointer, not through a '{a}'"),
                );
                return None;
            }
            let place = self.deref(p, span)?;
            self.store(&place, &Val::new(second, second_ty), span);
        }
        Some(Val::new(result, t))
    }

    /// fract, modf or frexp of `x` (float or double gentype `t`): the
    /// returned value, the one stored through the pointer, and its type.
    fn split_float(&mut self, name: &str, x: Word, t: &Type, below_one: f64) -> (Word, Word, Type) {
        let double = t.elem_scalar() == Some(Scalar::Double);
        // The IEEE layout of the element: mantissa bits, exponent mask, the
        // smallest normal.
        let (mant_bits, exp_mask, min_normal) = if double {
            (52, 0x7ff, f64::MIN_POSITIVE)
        } else {
            (23, 0xff, f64::from(f32::MIN_POSITIVE))
        };
        let ty = self.sty(t);
        let bt = self.bool_ty(t.width());
        let it = t.with_elem(Scalar::Int);
        let ity = self.sty(&it);
        let zero = self.constant(t, ConstVal::Float(0.0));
        let is_inf = self.op(Op::IsInf, bt, &[x]);
        let is_nan = self.op(Op::IsNan, bt, &[x]);
        let signed_zero = self.copysign_ids(zero, x, t);
        match name {
            "fract" => {
                let fl = self.glsl(ty, glsl::FLOOR, &[x]);
                let d = self.op(Op::FSub, ty, &[x, fl]);
                let almost = self.constant(t, ConstVal::Float(below_one));
                let r = self.glsl(ty, glsl::FMIN, &[d, almost]);
                let r = self.op(Op::Select, ty, &[is_inf, signed_zero, r]);
                let r = self.op(Op::Select, ty, &[is_nan, x, r]);
                (r, fl, t.clone())
            }
            "modf" => {
                let whole = self.glsl(ty, glsl::TRUNC, &[x]);
                let d = self.op(Op::FSub, ty, &[x, whole]);
                let d = self.copysign_ids(d, x, t);
                let r = self.op(Op::Select, ty, &[is_inf, signed_zero, d]);
                let r = self.op(Op::Select, ty, &[is_nan, x, r]);
                (r, whole, t.clone())
            }
            _ => {
                // frexp: subnormals are scaled into the normal range first
                // (by 2^(mantissa bits + 1)).
                let bits_scalar = if double { Scalar::ULong } else { Scalar::UInt };
                let ut = t.with_elem(bits_scalar);
                let uty = self.sty(&ut);
                let tiny = self.constant(t, ConstVal::Float(min_normal));
                let ax = self.glsl(ty, glsl::FABS, &[x]);
                let small = self.op(Op::FOrdLessThan, bt, &[ax, tiny]);
                let scale = self.constant(t, ConstVal::Float(2f64.powi(mant_bits as i32 + 1)));
                let scaled = self.op(Op::FMul, ty, &[x, scale]);
                let v = self.op(Op::Select, ty, &[small, scaled, x]);
                let bits = self.op(Op::Bitcast, uty, &[v]);
                let kshift = self.constant(&ut, ConstVal::Int(mant_bits));
                let kmask = self.constant(&ut, ConstVal::Int(exp_mask));
                let ex = self.op(Op::ShiftRightLogical, uty, &[bits, kshift]);
                let ex = self.op(Op::BitwiseAnd, uty, &[ex, kmask]);
                let ex = self.convert_elems(ex, bits_scalar, Scalar::Int, t.width());
                let bias = self.constant(&it, ConstVal::Int(exp_mask / 2 - 1));
                let adj = self.constant(&it, ConstVal::Int(mant_bits + 1));
                let izero = self.constant(&it, ConstVal::Int(0));
                let ex = self.op(Op::ISub, ity, &[ex, bias]);
                let ex_adj = self.op(Op::ISub, ity, &[ex, adj]);
                let e = self.op(Op::Select, ity, &[small, ex_adj, ex]);
                // Keep sign and mantissa, set the exponent of [0.5, 1).
                let width_mask: i64 = if double { -1 } else { 0xffff_ffff };
                let sign_and_mantissa = !(exp_mask << mant_bits) & width_mask;
                let half_exponent = (exp_mask / 2 - 1) << mant_bits;
                let keep = self.constant(&ut, ConstVal::Int(sign_and_mantissa));
                let half = self.constant(&ut, ConstVal::Int(half_exponent));
                let mb = self.op(Op::BitwiseAnd, uty, &[bits, keep]);
                let mb = self.op(Op::BitwiseOr, uty, &[mb, half]);
                let mant = self.op(Op::Bitcast, ty, &[mb]);
                let is_zero = self.op(Op::FOrdEqual, bt, &[x, zero]);
                let special = self.op(Op::LogicalOr, bt, &[is_zero, is_inf]);
                let special = self.op(Op::LogicalOr, bt, &[special, is_nan]);
                let mant = self.op(Op::Select, ty, &[special, x, mant]);
                let e = self.op(Op::Select, ity, &[special, izero, e]);
                (mant, e, it.clone())
            }
        }
    }

    /// The magnitude of `mag` with the sign of `sign` (float or double).
    pub(super) fn copysign_ids(&mut self, mag: Word, sign: Word, t: &Type) -> Word {
        let (bits_scalar, sign_bit, magnitude) = if t.elem_scalar() == Some(Scalar::Double) {
            (Scalar::ULong, i64::MIN, i64::MAX)
        } else {
            (Scalar::UInt, 0x8000_0000, 0x7fff_ffff)
        };
        let ut = t.with_elem(bits_scalar);
        let uty = self.sty(&ut);
        let ty = self.sty(t);
        let m = self.op(Op::Bitcast, uty, &[mag]);
        let s = self.op(Op::Bitcast, uty, &[sign]);
        let sb = self.constant(&ut, ConstVal::Int(sign_bit));
        let mb = self.constant(&ut, ConstVal::Int(magnitude));
        let m = self.op(Op::BitwiseAnd, uty, &[m, mb]);
        let s = self.op(Op::BitwiseAnd, uty, &[s, sb]);
        let r = self.op(Op::BitwiseOr, uty, &[m, s]);
        self.op(Op::Bitcast, ty, &[r])
    }

    /// Calls library function `f` per component of `t` (the result's shape)
    /// with arguments of their own element types (`ldexp`'s int exponent).
    /// Up to 4 components the calls are inlined one after another; 8 and
    /// 16 go through a loop over the components, which inlines the function
    /// once: a float16 `lgamma` inlined 16 times is 1.9 MB of SPIR-V, which
    /// lavapipe's LLVM took minutes to compile.
    fn call_library_typed(
        &mut self,
        f: &'a FuncDef,
        t: &Type,
        args: &[(Word, Type)],
        span: Span,
    ) -> R<Val> {
        let n = t.width();
        if n > 4 {
            return self.call_library_in_loop(f, t, args, span);
        }
        let mut comps = Vec::new();
        for i in 0..n {
            let mut vals = Vec::new();
            for (id, at) in args {
                let et = Type::Scalar(at.elem_scalar()?);
                let c = if n == 1 {
                    *id
                } else {
                    let ety = self.sty(&et);
                    self.op(Op::CompositeExtract, ety, &[*id, i])
                };
                vals.push(Val::new(c, et));
            }
            comps.push(self.call_function(f, vals, span)?.id);
        }
        Some(self.value_of_components(&comps, t))
    }

    /// `call_library_typed` for 8 and 16 components: the arguments go to
    /// `Function` variables (8- and 16-component values are arrays), and
    /// a loop calls `f` on component i of each, storing the result's.
    fn call_library_in_loop(
        &mut self,
        f: &'a FuncDef,
        t: &Type,
        args: &[(Word, Type)],
        span: Span,
    ) -> R<Val> {
        let mut inputs = Vec::new();
        for (id, at) in args {
            let var = self.new_function_var(at);
            self.op_void(Op::Store, &[var, *id]);
            inputs.push((var, Type::Scalar(at.elem_scalar()?)));
        }
        let result = self.new_function_var(t);
        let rt = Type::Scalar(t.elem_scalar()?);
        let u = self.sty(&Type::UINT);
        let index = self.new_function_var(&Type::UINT);
        let zero = self.u32c(0);
        self.op_void(Op::Store, &[index, zero]);
        let count = self.u32c(t.width());
        let one = self.u32c(1);
        self.counted_loop(index, u, count, one, |l, i| {
            let mut vals = Vec::new();
            for (var, et) in &inputs {
                let ety = l.sty(et);
                let p = l.ptr_ty(StorageClass::Function, et);
                let element = l.op(Op::AccessChain, p, &[*var, i]);
                vals.push(Val::new(l.op(Op::Load, ety, &[element]), et.clone()));
            }
            let r = l.call_function(f, vals, span)?;
            let p = l.ptr_ty(StorageClass::Function, &rt);
            let element = l.op(Op::AccessChain, p, &[result, i]);
            l.op_void(Op::Store, &[element, r.id]);
            Some(())
        })?;
        let ty = self.sty(t);
        Some(Val::new(self.op(Op::Load, ty, &[result]), t.clone()))
    }

    fn call_library(&mut self, f: &'a FuncDef, t: &Type, ids: &[Word], span: Span) -> R<Val> {
        let args: Vec<(Word, Type)> = ids.iter().map(|&id| (id, t.clone())).collect();
        self.call_library_typed(f, t, &args, span)
    }

    /// The id of a printf string, added to the table once.
    fn printf_string(&mut self, bytes: &[u8]) -> u32 {
        let text = String::from_utf8_lossy(bytes).into_owned();
        match self.printf_strings.iter().position(|s| *s == text) {
            Some(i) => i as u32,
            None => {
                self.printf_strings.push(text);
                (self.printf_strings.len() - 1) as u32
            }
        }
    }

    /// printf: reserves a record in the printf buffer with an atomic add
    /// and writes the format id and the arguments there (the layout is in
    /// the crate docs). Returns 0, or -1 when the buffer is full.
    fn printf(&mut self, args: &'a [Expr], span: Span) -> R<Val> {
        let Some(Expr {
            kind: ExprKind::StrLit(format),
            ..
        }) = args.first()
        else {
            self.error(span, "printf's format must be a string literal");
            return None;
        };
        let Some(hidden) = self.k.printf_offset else {
            self.error(span, "printf is not supported here");
            return None;
        };
        let format_id = self.printf_string(format);
        // Each argument: kind, component count, then 8 bytes a component.
        let u = self.m.ty(TypeKey::Int(32));
        let ul = self.m.ty(TypeKey::Int(64));
        let mut slots: Vec<(u32, Vec<Word>)> = Vec::new();
        for a in &args[1..] {
            if let ExprKind::StrLit(text) = &a.kind {
                let id = self.printf_string(text);
                let v = self.m.u64_const(id as u64);
                slots.push((PRINTF_STRING, vec![v]));
                continue;
            }
            let v = self.expr(a)?;
            let (kind, comps) = self.printf_slot(v, a.span)?;
            slots.push((kind, comps));
        }
        let size: u32 = 8 + slots
            .iter()
            .map(|(_, c)| 8 + 8 * c.len() as u32)
            .sum::<u32>();
        let buffer = self.read_arg(&Type::ULONG, hidden);
        let pu = self
            .m
            .ty(TypeKey::Pointer(StorageClass::PhysicalStorageBuffer, u));
        let pl = self
            .m
            .ty(TypeKey::Pointer(StorageClass::PhysicalStorageBuffer, ul));
        let used_ptr = self.op(Op::ConvertUToPtr, pu, &[buffer]);
        self.m.capability(Capability::VulkanMemoryModelDeviceScope);
        let device = self.u32c(SCOPE_DEVICE);
        let relaxed = self.u32c(0);
        let size_c = self.u32c(size);
        let at = self.op(Op::AtomicIAdd, u, &[used_ptr, device, relaxed, size_c]);
        let four = self.m.u64_const(4);
        let cap_addr = self.op(Op::IAdd, ul, &[buffer, four]);
        let cap_ptr = self.op(Op::ConvertUToPtr, pu, &[cap_addr]);
        let cap = self.op(Op::Load, u, &[cap_ptr, MA_ALIGNED | MA_NON_PRIVATE, 4]);
        let end = self.op(Op::IAdd, u, &[at, size_c]);
        let bt = self.bool_ty(1);
        // The end is checked against the start too, against wrap-around.
        let fits = self.op(Op::ULessThanEqual, bt, &[end, cap]);
        let no_wrap = self.op(Op::UGreaterThan, bt, &[end, at]);
        let fits = self.op(Op::LogicalAnd, bt, &[fits, no_wrap]);
        let (write, merge) = (self.label(), self.label());
        self.op_void(Op::SelectionMerge, &[merge, 0]);
        self.term(Op::BranchConditional, &[fits, write, merge]);
        self.f.begin(write);
        let at64 = self.op(Op::UConvert, ul, &[at]);
        let base = self.op(Op::IAdd, ul, &[buffer, at64]);
        let mut offset = 0u64;
        let put32 = |l: &mut Self, offset: u64, v: Word| {
            let o = l.m.u64_const(offset);
            let a = l.op(Op::IAdd, ul, &[base, o]);
            let p = l.op(Op::ConvertUToPtr, pu, &[a]);
            l.op_void(Op::Store, &[p, v, MA_ALIGNED | MA_NON_PRIVATE, 4]);
        };
        let id_c = self.u32c(format_id);
        put32(self, offset, id_c);
        put32(self, offset + 4, size_c);
        offset += 8;
        for (kind, comps) in &slots {
            let k = self.u32c(*kind);
            let n = self.u32c(comps.len() as u32);
            put32(self, offset, k);
            put32(self, offset + 4, n);
            offset += 8;
            for c in comps {
                let o = self.m.u64_const(offset);
                let a = self.op(Op::IAdd, ul, &[base, o]);
                let p = self.op(Op::ConvertUToPtr, pl, &[a]);
                self.op_void(Op::Store, &[p, *c, MA_ALIGNED | MA_NON_PRIVATE, 8]);
                offset += 8;
            }
        }
        self.branch(merge);
        self.f.begin(merge);
        let zero = self.const_val(&Type::INT, 0);
        let minus = self.const_val(&Type::INT, -1);
        let it = self.sty(&Type::INT);
        Some(Val::new(
            self.op(Op::Select, it, &[fits, zero.id, minus.id]),
            Type::INT,
        ))
    }

    /// How one printf argument is recorded: its kind and its components,
    /// each widened to 64 bits.
    fn printf_slot(&mut self, v: Val, span: Span) -> R<(u32, Vec<Word>)> {
        let ul = self.m.ty(TypeKey::Int(64));
        let n = v.ty.width();
        let Some(s) = v.ty.elem_scalar().or(match &v.ty {
            Type::Pointer(..) => Some(Scalar::ULong),
            _ => None,
        }) else {
            let t = self.types.name(&v.ty);
            self.error(span, format!("printf cannot print a '{t}'"));
            return None;
        };
        let kind = match (&v.ty, s) {
            (Type::Pointer(..), _) => PRINTF_POINTER,
            (_, Scalar::Double) => PRINTF_DOUBLE,
            (_, s) if s.is_float() => PRINTF_FLOAT,
            (_, s) if s.is_signed() => PRINTF_SIGNED,
            _ => PRINTF_UNSIGNED,
        };
        let st = self.sty(&Type::Scalar(s));
        let mut comps = Vec::new();
        for i in 0..n {
            let c = if n == 1 {
                v.id
            } else {
                self.op(Op::CompositeExtract, st, &[v.id, i])
            };
            let w = match (&v.ty, s) {
                (Type::Pointer(_, sp, _), _) if !sp.is_addressed() => {
                    self.op(Op::UConvert, ul, &[c])
                }
                (Type::Pointer(..), _) => c,
                (_, Scalar::Double) => self.op(Op::Bitcast, ul, &[c]),
                (_, Scalar::Half) => {
                    let f = self.sty(&Type::FLOAT);
                    let f = self.op(Op::FConvert, f, &[c]);
                    let u = self.m.ty(TypeKey::Int(32));
                    let b = self.op(Op::Bitcast, u, &[f]);
                    self.op(Op::UConvert, ul, &[b])
                }
                (_, Scalar::Float) => {
                    let u = self.m.ty(TypeKey::Int(32));
                    let b = self.op(Op::Bitcast, u, &[c]);
                    self.op(Op::UConvert, ul, &[b])
                }
                (_, s) => self.convert_elems(
                    c,
                    s,
                    if s.is_signed() {
                        Scalar::Long
                    } else {
                        Scalar::ULong
                    },
                    1,
                ),
            };
            comps.push(w);
        }
        Some((kind, comps))
    }

    /// popcount, clz, ctz. Vulkan's bit instructions take 32-bit operands
    /// only, so other widths go through 32-bit halves or widening.
    fn bit_count(&mut self, name: &str, x: Word, t: &Type) -> Word {
        let s = t.elem_scalar().unwrap_or(Scalar::UInt);
        let n = t.width();
        let bits = s.bits();
        let u32t = Type::vector_or_scalar(Scalar::UInt, n);
        let uty = self.sty(&u32t);
        let ty = self.sty(t);
        let bt = self.bool_ty(n);
        let one32 = |l: &mut Self, v: Word, name: &str| -> Word {
            match name {
                "popcount" => l.op(Op::BitCount, uty, &[v]),
                "clz" => {
                    let msb = l.glsl(uty, glsl::FIND_UMSB, &[v]);
                    let k = l.constant(&u32t, ConstVal::Int(31));
                    l.op(Op::ISub, uty, &[k, msb])
                }
                _ => {
                    let lsb = l.glsl(uty, glsl::FIND_ILSB, &[v]);
                    let zero = l.constant(&u32t, ConstVal::Int(0));
                    let is0 = l.op(Op::IEqual, bt, &[v, zero]);
                    let k = l.constant(&u32t, ConstVal::Int(32));
                    l.op(Op::Select, uty, &[is0, k, lsb])
                }
            }
        };
        if bits == 64 {
            let lo = self.op(Op::UConvert, uty, &[x]);
            let sh = self.constant(t, ConstVal::Int(32));
            let hi = self.op(Op::ShiftRightLogical, ty, &[x, sh]);
            let hi = self.op(Op::UConvert, uty, &[hi]);
            let (cl, ch) = (one32(self, lo, name), one32(self, hi, name));
            let k32 = self.constant(&u32t, ConstVal::Int(32));
            let zero = self.constant(&u32t, ConstVal::Int(0));
            let r = match name {
                "popcount" => self.op(Op::IAdd, uty, &[cl, ch]),
                "clz" => {
                    let hz = self.op(Op::IEqual, bt, &[hi, zero]);
                    let alt = self.op(Op::IAdd, uty, &[k32, cl]);
                    self.op(Op::Select, uty, &[hz, alt, ch])
                }
                _ => {
                    let lz = self.op(Op::IEqual, bt, &[lo, zero]);
                    let alt = self.op(Op::IAdd, uty, &[k32, ch]);
                    self.op(Op::Select, uty, &[lz, alt, cl])
                }
            };
            return self.op(Op::UConvert, ty, &[r]);
        }
        let w = if bits < 32 {
            self.op(Op::UConvert, uty, &[x])
        } else {
            x
        };
        let mut r = one32(self, w, name);
        if bits < 32 {
            match name {
                "clz" => {
                    let k = self.constant(&u32t, ConstVal::Int(32 - bits as i64));
                    r = self.op(Op::ISub, uty, &[r, k]);
                }
                "ctz" => {
                    let k = self.constant(&u32t, ConstVal::Int(bits as i64));
                    r = self.glsl(uty, glsl::UMIN, &[r, k]);
                }
                _ => {}
            }
            return self.op(Op::UConvert, ty, &[r]);
        }
        r
    }

    pub(super) fn saturating(&mut self, add: bool, a: Word, b: Word, t: &Type) -> Word {
        let s = t.elem_scalar().unwrap_or(Scalar::Int);
        let n = t.width();
        let ty = self.sty(t);
        let op = if add { Op::IAdd } else { Op::ISub };
        if s.bits() < 64 {
            let wide = Scalar::int(s.bits() * 2, s.is_signed());
            let wt = t.with_elem(wide);
            let wty = self.sty(&wt);
            let (wa, wb) = (
                self.convert_elems(a, s, wide, n),
                self.convert_elems(b, s, wide, n),
            );
            let r = self.op(op, wty, &[wa, wb]);
            let lo = self.constant(&wt, ConstVal::Int(int_min(s)));
            let hi = self.constant(&wt, ConstVal::Int(int_max(s)));
            let c = if s.is_signed() {
                self.glsl(wty, glsl::SCLAMP, &[r, lo, hi])
            } else if add {
                self.glsl(wty, glsl::UMIN, &[r, hi])
            } else {
                // Unsigned subtraction wrapped above the range means below 0.
                let bt = self.bool_ty(n);
                let under = self.op(Op::UGreaterThan, bt, &[r, hi]);
                self.op(Op::Select, wty, &[under, lo, r])
            };
            return self.convert_elems(c, wide, s, n);
        }
        let r = self.op(op, ty, &[a, b]);
        let bt = self.bool_ty(n);
        if !s.is_signed() {
            let (over, lim) = if add {
                (
                    self.op(Op::ULessThan, bt, &[r, a]),
                    self.constant(t, ConstVal::Int(-1)),
                )
            } else {
                (
                    self.op(Op::ULessThan, bt, &[a, b]),
                    self.constant(t, ConstVal::Int(0)),
                )
            };
            return self.op(Op::Select, ty, &[over, lim, r]);
        }
        let x1 = self.op(Op::BitwiseXor, ty, &[a, r]);
        let x2 = if add {
            self.op(Op::BitwiseXor, ty, &[b, r])
        } else {
            self.op(Op::BitwiseXor, ty, &[a, b])
        };
        let both = self.op(Op::BitwiseAnd, ty, &[x1, x2]);
        let zero = self.constant(t, ConstVal::Int(0));
        let over = self.op(Op::SLessThan, bt, &[both, zero]);
        let aneg = self.op(Op::SLessThan, bt, &[a, zero]);
        let min = self.constant(t, ConstVal::Int(i64::MIN));
        let max = self.constant(t, ConstVal::Int(i64::MAX));
        let lim = self.op(Op::Select, ty, &[aneg, min, max]);
        self.op(Op::Select, ty, &[over, lim, r])
    }

    fn mul_hi(&mut self, a: Word, b: Word, t: &Type) -> Word {
        let s = t.elem_scalar().unwrap_or(Scalar::Int);
        let n = t.width();
        let ty = self.sty(t);
        if s.bits() < 64 {
            let wide = Scalar::int(s.bits() * 2, s.is_signed());
            let wt = t.with_elem(wide);
            let wty = self.sty(&wt);
            let (wa, wb) = (
                self.convert_elems(a, s, wide, n),
                self.convert_elems(b, s, wide, n),
            );
            let p = self.op(Op::IMul, wty, &[wa, wb]);
            let sh = self.constant(&wt, ConstVal::Int(s.bits() as i64));
            let hi = self.op(Op::ShiftRightLogical, wty, &[p, sh]);
            return self.op(Op::UConvert, ty, &[hi]);
        }
        if n > 4 {
            // 8- and 16-component vectors are arrays here, which
            // OpSMulExtended/OpUMulExtended cannot take: one per component.
            let st = Type::Scalar(s);
            let ety = self.sty(&st);
            let mut comps = Vec::with_capacity(n as usize);
            for i in 0..n {
                let ai = self.op(Op::CompositeExtract, ety, &[a, i]);
                let bi = self.op(Op::CompositeExtract, ety, &[b, i]);
                comps.push(self.mul_hi(ai, bi, &st));
            }
            return self.op(Op::CompositeConstruct, ty, &comps);
        }
        let st = self.m.ty(TypeKey::Struct(vec![ty, ty]));
        let o = if s.is_signed() {
            Op::SMulExtended
        } else {
            Op::UMulExtended
        };
        let r = self.op(o, st, &[a, b]);
        self.op(Op::CompositeExtract, ty, &[r, 1])
    }
}

fn int_min(s: Scalar) -> i64 {
    if s.is_signed() && s.bits() < 64 {
        -(1i64 << (s.bits() - 1))
    } else if s.is_signed() {
        i64::MIN
    } else {
        0
    }
}

fn int_max(s: Scalar) -> i64 {
    match (s.is_signed(), s.bits()) {
        (true, 64) => i64::MAX,
        (false, 64) => -1,
        (true, b) => (1i64 << (b - 1)) - 1,
        (false, b) => (1i64 << b) - 1,
    }
}

/// The smallest and largest value of integer type `s`, exactly.
fn int_range_i128(s: Scalar) -> (i128, i128) {
    let b = s.bits();
    if s.is_signed() {
        (-(1i128 << (b - 1)), (1i128 << (b - 1)) - 1)
    } else {
        (0, (1i128 << b) - 1)
    }
}

/// The range of integer type `s` as exactly representable floats: the
/// minimum and one past the maximum.
fn int_range_f64(s: Scalar) -> (f64, f64) {
    let b = s.bits() as i32;
    if s.is_signed() {
        (-(2f64.powi(b - 1)), 2f64.powi(b - 1))
    } else {
        (0.0, 2f64.powi(b))
    }
}
