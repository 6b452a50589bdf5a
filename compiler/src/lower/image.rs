//! Images and samplers in kernels.
//!
//! The layout the runtime shares is in docs/images.md: an image argument is
//! the 8-byte device address of an image descriptor, a sampler argument
//! 8 bytes holding the sampler's `CLK_*` bits. Image and sampler values are
//! therefore 64-bit integers in the IR. The built-ins (`read_image*`,
//! `write_image*`, `get_image_*`) check their operands here, by the rules of
//! section 6.15.15 of the OpenCL C specification, and call the image library
//! (`sema/library_image.cl`), which decodes, filters and encodes texels in
//! software.

use super::outline::OutlinedParam;
use super::*;

/// What an image type's coordinates look like.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ImageShape {
    /// Spatial coordinates (1, 2 or 3).
    dims: u32,
    /// Which coordinate selects an array layer: 1 for 1D arrays, 2 for 2D
    /// arrays, 0 for images that are not arrays.
    layered_axis: u32,
    /// Components of the coordinate argument (1, 2 or 4).
    coord_width: u32,
    /// A depth image: colours are a single float.
    depth: bool,
    /// `image1d_buffer_t`: no sampler may read it.
    buffer: bool,
}

fn image_shape(name: &str) -> Option<ImageShape> {
    let (dims, layered_axis, coord_width, depth, buffer) = match name {
        "image1d_t" => (1, 0, 1, false, false),
        "image1d_buffer_t" => (1, 0, 1, false, true),
        "image1d_array_t" => (1, 1, 2, false, false),
        "image2d_t" => (2, 0, 2, false, false),
        "image2d_array_t" => (2, 2, 4, false, false),
        "image3d_t" => (3, 0, 4, false, false),
        "image2d_depth_t" => (2, 0, 2, true, false),
        "image2d_array_depth_t" => (2, 2, 4, true, false),
        _ => return None,
    };
    Some(ImageShape {
        dims,
        layered_axis,
        coord_width,
        depth,
        buffer,
    })
}

/// Whether an identifier names an image built-in, whose implementation is
/// the image library.
pub(crate) fn uses_image_library(name: &str) -> bool {
    name.starts_with("read_image")
        || name.starts_with("write_image")
        || name.starts_with("get_image_")
}

/// The element type a built-in reads or writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Texel {
    Float,
    Int,
    UInt,
    Half,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Query {
    Width,
    Height,
    Depth,
    ArraySize,
    Dim,
    ChannelDataType,
    ChannelOrder,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ImageBuiltin {
    Read(Texel),
    Write(Texel),
    Query(Query),
}

fn image_builtin(name: &str) -> Option<ImageBuiltin> {
    use ImageBuiltin::*;
    Some(match name {
        "read_imagef" => Read(Texel::Float),
        "read_imagei" => Read(Texel::Int),
        "read_imageui" => Read(Texel::UInt),
        "read_imageh" => Read(Texel::Half),
        "write_imagef" => Write(Texel::Float),
        "write_imagei" => Write(Texel::Int),
        "write_imageui" => Write(Texel::UInt),
        "write_imageh" => Write(Texel::Half),
        "get_image_width" => Query(self::Query::Width),
        "get_image_height" => Query(self::Query::Height),
        "get_image_depth" => Query(self::Query::Depth),
        "get_image_array_size" => Query(self::Query::ArraySize),
        "get_image_dim" => Query(self::Query::Dim),
        "get_image_channel_data_type" => Query(self::Query::ChannelDataType),
        "get_image_channel_order" => Query(self::Query::ChannelOrder),
        _ => return None,
    })
}

/// The image library functions that are SPIR-V functions of their own
/// rather than inlined at each call. A sampled read with its decoding,
/// addressing and filtering is tens of kilobytes of SPIR-V; a kernel that
/// reads nine texels carried nine copies, which every driver then parsed
/// and optimised apart.
const OUTLINED: [&str; 7] = [
    "__ferrocl_img_sample_f",
    "__ferrocl_img_sample_i",
    "__ferrocl_img_fetch_f",
    "__ferrocl_img_fetch_i",
    "__ferrocl_img_write_f",
    "__ferrocl_img_write_i",
    "__ferrocl_img_write_ui",
];

/// One image library function emitted once per module (see [`OUTLINED`]).
#[derive(Clone, Copy, Debug)]
pub(super) struct OutlinedFunction {
    id: Word,
    /// Bytes of `__private` variables the function's body declares.
    private_bytes: u64,
}

const FLOAT4: Type = Type::Vector(Scalar::Float, 4);
const INT4: Type = Type::Vector(Scalar::Int, 4);
const UINT4: Type = Type::Vector(Scalar::UInt, 4);

impl<'a> Lowerer<'a> {
    /// The argument layout `(kind, address qualifier, size, alignment)` of a
    /// kernel parameter of opaque type `name`; None (with a diagnostic) when
    /// such a parameter is not allowed.
    pub(super) fn opaque_arg(
        &mut self,
        name: &'static str,
        p: &Param,
    ) -> Option<(ArgKind, AddressQualifier, u32, u32)> {
        if image_shape(name).is_some() {
            if !self.caps.images {
                self.error(p.span, format!("{name} needs a device with image support"));
                return None;
            }
            return Some((ArgKind::Image, AddressQualifier::Global, 8, 8));
        }
        if name == "sampler_t" {
            if !self.caps.images {
                self.error(p.span, "sampler_t needs a device with image support");
                return None;
            }
            if p.access != Access::None {
                self.error(p.span, "access qualifiers apply to image types only");
                return None;
            }
            return Some((ArgKind::Sampler, AddressQualifier::Private, 8, 8));
        }
        self.error(p.span, format!("kernel arguments cannot be of type {name}"));
        None
    }

    /// A kernel-scope `sampler_t` variable (`const sampler_t s = CLK_...;`),
    /// or the diagnostic for a variable of another opaque type.
    pub(super) fn opaque_local(&mut self, v: &'a VarDecl) {
        let Type::Opaque(name) = v.ty else { return };
        if name != "sampler_t" {
            self.error(
                v.span,
                format!(
                    "variable '{}' cannot be of type {name}: images are kernel or function parameters only",
                    v.name
                ),
            );
            return;
        }
        if !(self.frames.is_empty() && self.call_stack.len() == 1) {
            self.error(
                v.span,
                "sampler_t variables can only be declared at the outermost scope of a kernel function",
            );
            return;
        }
        let Some(Init::Expr(e)) = &v.init else {
            self.error(v.span, "a sampler_t variable must be initialised");
            return;
        };
        let Some(value) = self.sampler_operand(e) else {
            return;
        };
        let sym = self.named_private(&v.name, &v.ty);
        let place = Self::sym_place(&sym);
        self.bind(&v.name, sym);
        let wide = self.convert_elems(value, Scalar::UInt, Scalar::ULong, 1);
        self.store(&place, &Val::new(wide, v.ty.clone()), v.span);
    }

    /// A program-scope `constant sampler_t s = CLK_...;`: a constant holding
    /// the sampler bits.
    pub(super) fn program_scope_opaque(&mut self, g: &VarDecl) {
        let Type::Opaque(name) = g.ty else { return };
        if name != "sampler_t" {
            self.error(
                g.span,
                format!("program-scope variables cannot be of type {name}"),
            );
            return;
        }
        let bits = match &g.init {
            Some(Init::Expr(e)) => sampler_constant(e, self.types),
            _ => None,
        };
        let Some(bits) = bits else {
            self.error(
                g.span,
                "a program-scope sampler must be initialised with a constant of CLK_* values",
            );
            return;
        };
        let u64t = self.m.ty(TypeKey::Int(64));
        let init = self
            .m
            .constant(ConstKey::Bits(u64t, bits as u64 & 0xffff_ffff));
        let p = self.m.ty(TypeKey::Pointer(StorageClass::Private, u64t));
        let var = self
            .m
            .global(Op::Variable, p, &[StorageClass::Private as u32, init]);
        self.m.name(var, &g.name);
        self.global_vars.push(var);
        self.globals.insert(
            g.name.clone(),
            Sym {
                root: var,
                sc: StorageClass::Private,
                ty: g.ty.clone(),
                base: None,
                pool: None,
            },
        );
    }

    /// A call to an image built-in (`read_image*`, `write_image*`,
    /// `get_image_*`); None when `name` is not one.
    pub(super) fn image_call(
        &mut self,
        name: &str,
        args: &'a [Expr],
        span: Span,
    ) -> Option<R<Val>> {
        let which = image_builtin(name)?;
        Some(self.image_builtin_call(which, name, args, span))
    }

    fn image_builtin_call(
        &mut self,
        which: ImageBuiltin,
        name: &str,
        args: &'a [Expr],
        span: Span,
    ) -> R<Val> {
        let Some(first) = args.first() else {
            self.error(span, format!("'{name}' needs an image argument"));
            return None;
        };
        let img = self.expr(first)?;
        let Some(shape) = (match &img.ty {
            Type::Opaque(n) => image_shape(n),
            _ => None,
        }) else {
            let t = self.types.name(&img.ty);
            self.error(
                first.span,
                format!("'{name}' needs an image as its first argument, not '{t}'"),
            );
            return None;
        };
        let img = Val::new(img.id, Type::ULONG);
        let access = match self.image_access(first) {
            Access::None => Access::ReadOnly,
            a => a,
        };
        match which {
            ImageBuiltin::Read(t) => self.read_image(name, t, shape, access, img, args, span),
            ImageBuiltin::Write(t) => self.write_image(name, t, shape, access, img, args, span),
            ImageBuiltin::Query(q) => self.query_image(name, q, shape, img, args, span),
        }
    }

    /// The access qualifier of the image parameter `e` names, in the
    /// function being lowered.
    fn image_access(&self, e: &Expr) -> Access {
        let ExprKind::Ident(n) = &e.kind else {
            return Access::None;
        };
        let Some(f) = self.call_stack.last().and_then(|f| self.funcs.get(f)) else {
            return Access::None;
        };
        f.params
            .iter()
            .find(|p| &p.name == n)
            .map_or(Access::None, |p| p.access)
    }

    fn wrong_arity(&mut self, name: &str, span: Span) -> R<Val> {
        self.error(
            span,
            format!("no matching function for call to '{name}' with these arguments"),
        );
        None
    }

    #[allow(clippy::too_many_arguments)]
    fn read_image(
        &mut self,
        name: &str,
        t: Texel,
        shape: ImageShape,
        access: Access,
        img: Val,
        args: &'a [Expr],
        span: Span,
    ) -> R<Val> {
        if access == Access::WriteOnly {
            self.error(span, format!("'{name}' cannot read a write_only image"));
            return None;
        }
        if t == Texel::Half && !self.caps.fp16 {
            self.error(span, format!("'{name}' needs cl_khr_fp16"));
            return None;
        }
        if shape.depth && !matches!(t, Texel::Float) {
            self.error(span, format!("'{name}' cannot read a depth image"));
            return None;
        }
        let rgba = match args.len() {
            3 => {
                if shape.buffer {
                    self.error(span, "image1d_buffer_t cannot be read with a sampler");
                    return None;
                }
                if access == Access::ReadWrite {
                    self.error(
                        span,
                        format!("'{name}' with a sampler cannot read a read_write image"),
                    );
                    return None;
                }
                let smp = self.sampler_operand(&args[1])?;
                let coord = self.coordinate(&args[2], shape, true)?;
                let coord = if coord.ty.elem_scalar() == Some(Scalar::Float) {
                    coord
                } else {
                    let id = self.convert_elems(coord.id, Scalar::Int, Scalar::Float, 4);
                    Val::new(id, FLOAT4)
                };
                let dims = self.const_val(&Type::INT, shape.dims as i64);
                let axis = self.const_val(&Type::INT, shape.layered_axis as i64);
                let smp = Val::new(smp, Type::UINT);
                let f = if t == Texel::Float || t == Texel::Half {
                    "__ferrocl_img_sample_f"
                } else {
                    "__ferrocl_img_sample_i"
                };
                self.call_image_library(f, vec![img, smp, coord, dims, axis], span)?
            }
            2 => {
                let coord = self.coordinate(&args[1], shape, false)?;
                let axis = self.const_val(&Type::INT, shape.layered_axis as i64);
                let f = if t == Texel::Float || t == Texel::Half {
                    "__ferrocl_img_fetch_f"
                } else {
                    "__ferrocl_img_fetch_i"
                };
                self.call_image_library(f, vec![img, coord, axis], span)?
            }
            _ => return self.wrong_arity(name, span),
        };
        match t {
            Texel::Float if shape.depth => {
                let ft = self.sty(&Type::FLOAT);
                Some(Val::new(
                    self.op(Op::CompositeExtract, ft, &[rgba.id, 0]),
                    Type::FLOAT,
                ))
            }
            Texel::Float | Texel::UInt => Some(rgba),
            Texel::Int => {
                let ty = self.sty(&INT4);
                Some(Val::new(self.op(Op::Bitcast, ty, &[rgba.id]), INT4))
            }
            Texel::Half => {
                let id = self.convert_elems(rgba.id, Scalar::Float, Scalar::Half, 4);
                Some(Val::new(id, Type::Vector(Scalar::Half, 4)))
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn write_image(
        &mut self,
        name: &str,
        t: Texel,
        shape: ImageShape,
        access: Access,
        img: Val,
        args: &'a [Expr],
        span: Span,
    ) -> R<Val> {
        if args.len() != 3 {
            return self.wrong_arity(name, span);
        }
        if access == Access::ReadOnly {
            self.error(span, format!("'{name}' cannot write a read_only image"));
            return None;
        }
        if t == Texel::Half && !self.caps.fp16 {
            self.error(span, format!("'{name}' needs cl_khr_fp16"));
            return None;
        }
        if shape.depth && t != Texel::Float {
            self.error(span, format!("'{name}' cannot write a depth image"));
            return None;
        }
        let coord = self.coordinate(&args[1], shape, false)?;
        let axis = self.const_val(&Type::INT, shape.layered_axis as i64);
        let color = self.expr(&args[2])?;
        let (f, color) = match t {
            Texel::Float if shape.depth => {
                let c = self.convert(color, &Type::FLOAT, args[2].span, false)?;
                let zero = self.constant(&Type::FLOAT, ConstVal::Float(0.0));
                let ty = self.sty(&FLOAT4);
                let id = self.op(Op::CompositeConstruct, ty, &[c.id, zero, zero, zero]);
                ("__ferrocl_img_write_f", Val::new(id, FLOAT4))
            }
            Texel::Float => (
                "__ferrocl_img_write_f",
                self.exact_vector(color, &FLOAT4, name, args[2].span)?,
            ),
            Texel::Half => {
                let h4 = Type::Vector(Scalar::Half, 4);
                let c = self.exact_vector(color, &h4, name, args[2].span)?;
                let id = self.convert_elems(c.id, Scalar::Half, Scalar::Float, 4);
                ("__ferrocl_img_write_f", Val::new(id, FLOAT4))
            }
            Texel::Int => (
                "__ferrocl_img_write_i",
                self.exact_vector(color, &INT4, name, args[2].span)?,
            ),
            Texel::UInt => (
                "__ferrocl_img_write_ui",
                self.exact_vector(color, &UINT4, name, args[2].span)?,
            ),
        };
        self.call_image_library(f, vec![img, coord, axis, color], span)?;
        Some(Val::new(0, Type::Void))
    }

    fn query_image(
        &mut self,
        name: &str,
        q: Query,
        shape: ImageShape,
        img: Val,
        args: &'a [Expr],
        span: Span,
    ) -> R<Val> {
        if args.len() != 1 {
            return self.wrong_arity(name, span);
        }
        let has_height = shape.dims >= 2;
        let arrayed = shape.layered_axis != 0;
        let allowed = match q {
            Query::Width | Query::ChannelDataType | Query::ChannelOrder => true,
            Query::Height | Query::Dim => has_height,
            Query::Depth => shape.dims == 3,
            Query::ArraySize => arrayed,
        };
        if !allowed {
            self.error(span, format!("'{name}' is not defined for this image type"));
            return None;
        }
        let field = |f: &str| format!("__ferrocl_img_{f}");
        match q {
            Query::Width => self.call_image_library(&field("width"), vec![img], span),
            Query::Height => self.call_image_library(&field("height"), vec![img], span),
            Query::Depth => self.call_image_library(&field("depth"), vec![img], span),
            Query::ChannelDataType => {
                self.call_image_library(&field("channel_data_type"), vec![img], span)
            }
            Query::ChannelOrder => {
                self.call_image_library(&field("channel_order"), vec![img], span)
            }
            Query::ArraySize => {
                let n = self.call_image_library(&field("array_size"), vec![img], span)?;
                let id = self.convert_elems(n.id, Scalar::Int, Scalar::ULong, 1);
                Some(Val::new(id, Type::ULONG))
            }
            Query::Dim => {
                let w = self.call_image_library(&field("width"), vec![img.clone()], span)?;
                let h = self.call_image_library(&field("height"), vec![img.clone()], span)?;
                if shape.dims == 3 {
                    let d = self.call_image_library(&field("depth"), vec![img], span)?;
                    let zero = self.constant(&Type::INT, ConstVal::Int(0));
                    let ty = self.sty(&INT4);
                    let id = self.op(Op::CompositeConstruct, ty, &[w.id, h.id, d.id, zero]);
                    Some(Val::new(id, INT4))
                } else {
                    let t2 = Type::Vector(Scalar::Int, 2);
                    let ty = self.sty(&t2);
                    let id = self.op(Op::CompositeConstruct, ty, &[w.id, h.id]);
                    Some(Val::new(id, t2))
                }
            }
        }
    }

    /// Calls the image library's function `f`: inlined for the small
    /// descriptor queries, a call of the module's one SPIR-V function for
    /// the reads and writes (see [`OutlinedFunction`]).
    fn call_image_library(&mut self, f: &str, args: Vec<Val>, span: Span) -> R<Val> {
        let Some(def) = self.funcs.get(f).copied() else {
            self.error(
                span,
                format!("internal compiler error: the image library lacks {f}"),
            );
            return None;
        };
        if !OUTLINED.contains(&f) {
            return self.call_function(def, args, span);
        }
        let callee = match self.image_functions.get(def.name.as_str()) {
            Some(c) => *c,
            None => {
                let c = self.outline_library_function(def, span)?;
                self.image_functions.insert(def.name.as_str(), c);
                c
            }
        };
        // The function's variables count towards every caller, as they
        // did when each call was inlined.
        self.private_bytes += callee.private_bytes;
        self.called.insert(def.name.as_str());
        let mut operands = vec![callee.id];
        for (p, a) in def.params.iter().zip(args) {
            operands.push(self.convert(a, &p.ty, span, false)?.id);
        }
        let ret = self.sty(&def.ret);
        let id = self.op(Op::FunctionCall, ret, &operands);
        Some(Val::new(id, def.ret.clone()))
    }

    /// Emits the library function `def` as a SPIR-V function of its own,
    /// with its own private pool (see [`Lowerer::emit_outlined`]).
    fn outline_library_function(&mut self, def: &'a FuncDef, span: Span) -> R<OutlinedFunction> {
        let types: Vec<OutlinedParam> = def
            .params
            .iter()
            .map(|p| OutlinedParam::Value(p.ty.clone()))
            .collect();
        let (id, private_bytes) = self.emit_outlined(def, &types, true, span)?;
        Some(OutlinedFunction { id, private_bytes })
    }

    /// The sampler bits of a sampler operand as a `uint`: a `sampler_t`
    /// value, or an integer constant expression of `CLK_*` values.
    fn sampler_operand(&mut self, e: &'a Expr) -> R<Word> {
        if let Some(bits) = sampler_constant(e, self.types) {
            return Some(self.u32c(bits as u32));
        }
        let v = self.expr(e)?;
        match &v.ty {
            Type::Opaque("sampler_t") => {
                Some(self.convert_elems(v.id, Scalar::ULong, Scalar::UInt, 1))
            }
            _ => {
                let t = self.types.name(&v.ty);
                self.error(e.span, format!("expected a sampler_t, not '{t}'"));
                None
            }
        }
    }

    /// A coordinate operand widened to 4 components (`float4` where floats
    /// are allowed and given, `int4` otherwise), the unused ones 0.
    fn coordinate(&mut self, e: &'a Expr, shape: ImageShape, float_ok: bool) -> R<Val> {
        let v = self.expr(e)?;
        let elem = v.ty.elem_scalar();
        let width = match v.ty {
            Type::Scalar(_) => 1,
            Type::Vector(_, n) => n as u32,
            _ => 0,
        };
        let ok_elem = elem == Some(Scalar::Int) || (float_ok && elem == Some(Scalar::Float));
        if !ok_elem || width != shape.coord_width {
            let t = self.types.name(&v.ty);
            let want = match (shape.coord_width, float_ok) {
                (1, true) => "int or float",
                (1, false) => "int",
                (2, true) => "int2 or float2",
                (2, false) => "int2",
                (_, true) => "int4 or float4",
                (_, false) => "int4",
            };
            self.error(
                e.span,
                format!("image coordinates of this image type are {want}, not '{t}'"),
            );
            return None;
        }
        let s = elem?;
        let t4 = Type::Vector(s, 4);
        if width == 4 {
            return Some(Val::new(v.id, t4));
        }
        let es = self.sty(&Type::Scalar(s));
        let mut comps = Vec::with_capacity(4);
        if width == 1 {
            comps.push(v.id);
        } else {
            for i in 0..width {
                comps.push(self.op(Op::CompositeExtract, es, &[v.id, i]));
            }
        }
        let zero = match s {
            Scalar::Float => self.constant(&Type::FLOAT, ConstVal::Float(0.0)),
            _ => self.constant(&Type::INT, ConstVal::Int(0)),
        };
        comps.resize(4, zero);
        let ty = self.sty(&t4);
        Some(Val::new(self.op(Op::CompositeConstruct, ty, &comps), t4))
    }

    /// A colour operand of exactly the type `t` (a scalar is widened, as for
    /// any vector operand; other vector types are an error).
    fn exact_vector(&mut self, v: Val, t: &Type, name: &str, span: Span) -> R<Val> {
        if matches!(v.ty, Type::Vector(..)) && v.ty != *t {
            let (a, b) = (self.types.name(&v.ty), self.types.name(t));
            self.error(span, format!("'{name}' takes a {b} colour, not '{a}'"));
            return None;
        }
        self.convert(v, t, span, false)
    }
}

/// The value of an integer constant expression built from `CLK_*` names
/// (sampler initialisers), or None when `e` is not one.
fn sampler_constant(e: &Expr, types: &crate::sema::types::TypeTable) -> Option<i64> {
    match &e.kind {
        ExprKind::Ident(n) => image_constant(n),
        ExprKind::Binary(op, a, b) => {
            let (a, b) = (sampler_constant(a, types)?, sampler_constant(b, types)?);
            Some(match op {
                BinOp::BitOr => a | b,
                BinOp::BitAnd => a & b,
                BinOp::BitXor => a ^ b,
                BinOp::Add => a.wrapping_add(b),
                _ => return None,
            })
        }
        ExprKind::Cast(Type::Scalar(s), inner) if s.is_integer() => sampler_constant(inner, types),
        ExprKind::Cast(Type::Opaque("sampler_t"), inner) => sampler_constant(inner, types),
        ExprKind::IntLit(..) | ExprKind::Unary(..) | ExprKind::Cond(..) => {
            match consteval::eval(e, types)? {
                ConstVal::Int(v) => Some(v),
                ConstVal::Float(_) => None,
            }
        }
        _ => None,
    }
}

/// The value of an image or sampler constant of OpenCL C (`CLK_RGBA`,
/// `CLK_ADDRESS_CLAMP`, `CLK_NORMALIZED_COORDS_TRUE`...); None for other
/// names.
pub(crate) fn image_constant(name: &str) -> Option<i64> {
    Some(match name {
        // Channel orders: the cl.h values of CL_R...
        "CLK_R" => 0x10B0,
        "CLK_A" => 0x10B1,
        "CLK_RG" => 0x10B2,
        "CLK_RA" => 0x10B3,
        "CLK_RGB" => 0x10B4,
        "CLK_RGBA" => 0x10B5,
        "CLK_BGRA" => 0x10B6,
        "CLK_ARGB" => 0x10B7,
        "CLK_INTENSITY" => 0x10B8,
        "CLK_LUMINANCE" => 0x10B9,
        "CLK_Rx" => 0x10BA,
        "CLK_RGx" => 0x10BB,
        "CLK_RGBx" => 0x10BC,
        "CLK_DEPTH" => 0x10BD,
        "CLK_DEPTH_STENCIL" => 0x10BE,
        "CLK_sRGB" => 0x10BF,
        "CLK_sRGBx" => 0x10C0,
        "CLK_sRGBA" => 0x10C1,
        "CLK_sBGRA" => 0x10C2,
        "CLK_ABGR" => 0x10C3,
        // Channel data types.
        "CLK_SNORM_INT8" => 0x10D0,
        "CLK_SNORM_INT16" => 0x10D1,
        "CLK_UNORM_INT8" => 0x10D2,
        "CLK_UNORM_INT16" => 0x10D3,
        "CLK_UNORM_SHORT_565" => 0x10D4,
        "CLK_UNORM_SHORT_555" => 0x10D5,
        "CLK_UNORM_INT_101010" => 0x10D6,
        "CLK_SIGNED_INT8" => 0x10D7,
        "CLK_SIGNED_INT16" => 0x10D8,
        "CLK_SIGNED_INT32" => 0x10D9,
        "CLK_UNSIGNED_INT8" => 0x10DA,
        "CLK_UNSIGNED_INT16" => 0x10DB,
        "CLK_UNSIGNED_INT32" => 0x10DC,
        "CLK_HALF_FLOAT" => 0x10DD,
        "CLK_FLOAT" => 0x10DE,
        "CLK_UNORM_INT24" => 0x10DF,
        "CLK_UNORM_INT_101010_2" => 0x10E0,
        // Sampler bits (docs/images.md).
        "CLK_NORMALIZED_COORDS_FALSE" => 0,
        "CLK_NORMALIZED_COORDS_TRUE" => 1,
        "CLK_ADDRESS_NONE" => 0,
        "CLK_ADDRESS_CLAMP_TO_EDGE" => 2,
        "CLK_ADDRESS_CLAMP" => 4,
        "CLK_ADDRESS_REPEAT" => 6,
        "CLK_ADDRESS_MIRRORED_REPEAT" => 8,
        "CLK_FILTER_NEAREST" => 0x10,
        "CLK_FILTER_LINEAR" => 0x20,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_have_the_cl_h_values() {
        assert_eq!(image_constant("CLK_RGBA"), Some(0x10B5));
        assert_eq!(image_constant("CLK_FLOAT"), Some(0x10DE));
        assert_eq!(image_constant("CLK_FILTER_LINEAR"), Some(0x20));
        assert_eq!(image_constant("CLK_GLOBAL_MEM_FENCE"), None);
    }

    /// (OpFunction count, OpFunctionCall count) of a module.
    fn functions_and_calls(words: &[Word]) -> (usize, usize) {
        let (mut functions, mut calls, mut i) = (0, 0, 5);
        while i < words.len() {
            let (len, op) = ((words[i] >> 16) as usize, words[i] & 0xffff);
            functions += (op == Op::Function as u32) as usize;
            calls += (op == Op::FunctionCall as u32) as usize;
            i += len.max(1);
        }
        (functions, calls)
    }

    #[test]
    fn reads_and_writes_share_one_function_each() {
        let caps = crate::TargetCaps {
            images: true,
            ..crate::TargetCaps::default()
        };
        let source = "constant sampler_t s = CLK_FILTER_LINEAR | CLK_ADDRESS_CLAMP;\n\
            kernel void a(read_only image2d_t src, write_only image2d_t dst) {\n\
              float4 v = read_imagef(src, s, (float2)(0.5f, 1.5f))\n\
                       + read_imagef(src, s, (float2)(2.5f, 1.5f))\n\
                       + read_imagef(src, s, (int2)(1, 1));\n\
              write_imagef(dst, (int2)(0, 0), v);\n\
              write_imagef(dst, (int2)(1, 0), v);\n\
            }\n\
            kernel void b(read_only image3d_t src, global float4 *out) {\n\
              *out = read_imagef(src, s, (float4)(0.5f));\n\
            }\n";
        let request = crate::CompileRequest {
            source,
            options: "",
            headers: &[],
        };
        let program = match crate::compile(&request, &caps) {
            Ok(p) => p,
            Err(e) => panic!("build failed:\n{}", e.log),
        };
        // Two kernels, one sampled-read function shared by both image
        // types, one write function; six calls.
        assert_eq!(functions_and_calls(&program.spirv), (4, 6));
    }

    #[test]
    fn image_built_in_names() {
        assert!(uses_image_library("read_imagef"));
        assert!(uses_image_library("get_image_dim"));
        assert!(!uses_image_library("read_mem_fence"));
        assert_eq!(
            image_builtin("write_imageui"),
            Some(ImageBuiltin::Write(Texel::UInt))
        );
        assert_eq!(
            image_shape("image2d_array_t").map(|s| s.coord_width),
            Some(4)
        );
    }
}
