//! A compiled program as bytes and back, for the runtime's on-disk cache
//! of builds.
//!
//! Little-endian, no padding: integers at their width, `bool` as one byte,
//! strings and lists as a `u32` length then their items, `Option` as a
//! byte 0 or 1 then the value, enums as a byte. The reader checks every
//! length against what is left and every tag against its enum, and
//! answers `None` for anything malformed; it never panics, whatever the
//! bytes. The format belongs to one compiler build: the cache keys
//! entries by [`crate::BUILD_ID`], so a changed layout needs no version.

use crate::{
    AccessQualifier, AddressQualifier, ArgBlock, ArgKind, CompiledProgram, KernelArg, KernelInfo,
};

impl CompiledProgram {
    /// The program as bytes ([`CompiledProgram::from_bytes`] reads them).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer(Vec::with_capacity(self.spirv.len() * 4 + 1024));
        w.u32(self.spirv.len() as u32);
        for word in &self.spirv {
            w.u32(*word);
        }
        w.u32(self.kernels.len() as u32);
        for k in &self.kernels {
            w.kernel(k);
        }
        w.u32(self.printf_strings.len() as u32);
        for s in &self.printf_strings {
            w.str(s);
        }
        w.bytes(&self.global_data);
        w.u32(self.global_relocations.len() as u32);
        for r in &self.global_relocations {
            w.u32(*r);
        }
        w.u64(self.global_variable_size as u64);
        w.str(&self.log);
        w.0
    }

    /// A program from [`CompiledProgram::to_bytes`]; `None` when `bytes`
    /// are not exactly such a program.
    pub fn from_bytes(bytes: &[u8]) -> Option<CompiledProgram> {
        let mut r = Reader(bytes);
        let words = r.len(4)?;
        let spirv = (0..words).map(|_| r.u32()).collect::<Option<Vec<_>>>()?;
        let kernels = r.len(1)?;
        let kernels = (0..kernels)
            .map(|_| r.kernel())
            .collect::<Option<Vec<_>>>()?;
        let strings = r.len(4)?;
        let printf_strings = (0..strings)
            .map(|_| r.string())
            .collect::<Option<Vec<_>>>()?;
        let global_data = r.byte_vec()?;
        let relocations = r.len(4)?;
        let global_relocations = (0..relocations)
            .map(|_| r.u32())
            .collect::<Option<Vec<_>>>()?;
        let global_variable_size = usize::try_from(r.u64()?).ok()?;
        let log = r.string()?;
        r.0.is_empty().then_some(CompiledProgram {
            spirv,
            kernels,
            printf_strings,
            global_data,
            global_relocations,
            global_variable_size,
            log,
        })
    }
}

struct Writer(Vec<u8>);

impl Writer {
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }

    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }

    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }

    fn bool(&mut self, v: bool) {
        self.u8(u8::from(v));
    }

    fn bytes(&mut self, v: &[u8]) {
        self.u32(v.len() as u32);
        self.0.extend_from_slice(v);
    }

    fn str(&mut self, v: &str) {
        self.bytes(v.as_bytes());
    }

    fn opt_u32(&mut self, v: Option<u32>) {
        self.bool(v.is_some());
        if let Some(v) = v {
            self.u32(v);
        }
    }

    fn opt_size(&mut self, v: Option<[u32; 3]>) {
        self.bool(v.is_some());
        for d in v.into_iter().flatten() {
            self.u32(d);
        }
    }

    fn kernel(&mut self, k: &KernelInfo) {
        self.str(&k.name);
        self.u32(k.args.len() as u32);
        for a in &k.args {
            self.str(&a.name);
            self.str(&a.type_name);
            self.u8(a.address_qualifier as u8);
            self.u8(a.access_qualifier as u8);
            self.u32(a.type_qualifier);
            self.u8(a.kind as u8);
            self.u32(a.offset);
            self.u32(a.size);
            self.opt_u32(a.local_size_spec_id);
        }
        self.u8(k.arg_block as u8);
        self.u32(k.args_size);
        self.opt_size(k.reqd_work_group_size);
        self.opt_size(k.work_group_size_hint);
        self.bool(k.vec_type_hint.is_some());
        if let Some(hint) = &k.vec_type_hint {
            self.str(hint);
        }
        self.str(&k.attributes);
        self.u64(k.static_local_mem_size);
        self.u64(k.private_mem_size);
        self.bool(k.uses_printf);
        self.bool(k.ignores_work_groups);
    }
}

struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Option<&[u8]> {
        if n > self.0.len() {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(head)
    }

    fn u8(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    fn bool(&mut self) -> Option<bool> {
        match self.u8()? {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        }
    }

    /// A list length whose items take at least `min_item` bytes each: no
    /// more than what is left can hold, so a corrupt length cannot make
    /// the reader allocate more than the input's size.
    fn len(&mut self, min_item: usize) -> Option<usize> {
        let n = self.u32()? as usize;
        (n.checked_mul(min_item)? <= self.0.len()).then_some(n)
    }

    fn byte_vec(&mut self) -> Option<Vec<u8>> {
        let n = self.u32()? as usize;
        Some(self.take(n)?.to_vec())
    }

    fn string(&mut self) -> Option<String> {
        String::from_utf8(self.byte_vec()?).ok()
    }

    fn opt_u32(&mut self) -> Option<Option<u32>> {
        Some(if self.bool()? {
            Some(self.u32()?)
        } else {
            None
        })
    }

    fn opt_size(&mut self) -> Option<Option<[u32; 3]>> {
        Some(if self.bool()? {
            Some([self.u32()?, self.u32()?, self.u32()?])
        } else {
            None
        })
    }

    fn kernel(&mut self) -> Option<KernelInfo> {
        let name = self.string()?;
        let count = self.len(1)?;
        let args = (0..count)
            .map(|_| {
                Some(KernelArg {
                    name: self.string()?,
                    type_name: self.string()?,
                    address_qualifier: variant(&ADDRESS_QUALIFIERS, self.u8()?)?,
                    access_qualifier: variant(&ACCESS_QUALIFIERS, self.u8()?)?,
                    type_qualifier: self.u32()?,
                    kind: variant(&ARG_KINDS, self.u8()?)?,
                    offset: self.u32()?,
                    size: self.u32()?,
                    local_size_spec_id: self.opt_u32()?,
                })
            })
            .collect::<Option<Vec<_>>>()?;
        Some(KernelInfo {
            name,
            args,
            arg_block: variant(&ARG_BLOCKS, self.u8()?)?,
            args_size: self.u32()?,
            reqd_work_group_size: self.opt_size()?,
            work_group_size_hint: self.opt_size()?,
            vec_type_hint: if self.bool()? {
                Some(self.string()?)
            } else {
                None
            },
            attributes: self.string()?,
            static_local_mem_size: self.u64()?,
            private_mem_size: self.u64()?,
            uses_printf: self.bool()?,
            ignores_work_groups: self.bool()?,
        })
    }
}

/// Each enum's variants in declaration order, so that a variant's `as u8`
/// (what the writer stores) is its index here.
const ADDRESS_QUALIFIERS: [AddressQualifier; 4] = [
    AddressQualifier::Global,
    AddressQualifier::Local,
    AddressQualifier::Constant,
    AddressQualifier::Private,
];
const ACCESS_QUALIFIERS: [AccessQualifier; 4] = [
    AccessQualifier::ReadOnly,
    AccessQualifier::WriteOnly,
    AccessQualifier::ReadWrite,
    AccessQualifier::None,
];
const ARG_KINDS: [ArgKind; 5] = [
    ArgKind::Value,
    ArgKind::Buffer,
    ArgKind::LocalPointer,
    ArgKind::Image,
    ArgKind::Sampler,
];
const ARG_BLOCKS: [ArgBlock; 3] = [ArgBlock::Push, ArgBlock::Buffer, ArgBlock::HeaderBuffer];

/// The variant a stored tag names, if any.
fn variant<T: Copy>(variants: &[T], tag: u8) -> Option<T> {
    variants.get(usize::from(tag)).copied()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{compile, CompileRequest, TargetCaps};

    #[test]
    fn each_variant_sits_at_its_tag() {
        let tags = |t: Vec<u8>| t.iter().enumerate().all(|(i, &t)| usize::from(t) == i);
        assert!(tags(ADDRESS_QUALIFIERS.map(|v| v as u8).to_vec()));
        assert!(tags(ACCESS_QUALIFIERS.map(|v| v as u8).to_vec()));
        assert!(tags(ARG_KINDS.map(|v| v as u8).to_vec()));
        assert!(tags(ARG_BLOCKS.map(|v| v as u8).to_vec()));
    }

    fn program() -> CompiledProgram {
        let source = r#"
            constant char greeting[] = "hi";
            global int counter = 3;
            __attribute__((reqd_work_group_size(8, 1, 1)))
            __attribute__((vec_type_hint(float4)))
            kernel void k(global float *out, const float4 v, local int *scratch,
                          read_only image2d_t img, sampler_t s) {
                scratch[get_local_id(0)] = counter;
                barrier(CLK_LOCAL_MEM_FENCE);
                out[get_global_id(0)] = v.x + scratch[0];
                printf("%s %d\n", greeting, counter);
            }
            kernel void plain(global uint *o) { o[get_global_id(0)] = 1; }"#;
        let request = CompileRequest {
            source,
            options: "-cl-std=CL3.0 -cl-kernel-arg-info",
            headers: &[],
        };
        let caps = TargetCaps {
            images: true,
            features: vec!["__opencl_c_program_scope_global_variables".into()],
            ..TargetCaps::default()
        };
        compile(&request, &caps).expect("the test program builds")
    }

    #[test]
    fn a_program_comes_back_the_same() {
        let p = program();
        assert!(!p.global_data.is_empty() && !p.printf_strings.is_empty());
        assert_eq!(p.kernels.len(), 2);
        let back = CompiledProgram::from_bytes(&p.to_bytes()).expect("the bytes read back");
        assert_eq!(back, p);
    }

    #[test]
    fn every_cut_or_flipped_byte_is_refused_or_read_without_panic() {
        let bytes = program().to_bytes();
        // Every proper prefix is too short for the program it starts.
        for n in 0..bytes.len() {
            assert!(
                CompiledProgram::from_bytes(&bytes[..n]).is_none(),
                "prefix {n}"
            );
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(CompiledProgram::from_bytes(&longer).is_none());
        // A flipped byte may still read (in SPIR-V words, say): the point
        // is that no byte makes the reader panic or allocate wildly.
        let step = (bytes.len() / 2000).max(1);
        for i in (0..bytes.len()).step_by(step) {
            for flip in [0x01, 0x80, 0xff] {
                let mut b = bytes.clone();
                b[i] ^= flip;
                let _ = CompiledProgram::from_bytes(&b);
            }
        }
    }
}
