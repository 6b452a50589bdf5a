//! `as_typen` between types of the same size whose component counts differ
//! where one side has more than 4 components (OpenCL C 6.4.4.2), which no
//! single `OpBitcast` can do: Vulkan SPIR-V has no vectors wider than 4.
//!
//! The operand is taken apart into 32-bit words in the order its bytes lie
//! in memory on a little-endian device, and the result is built from those
//! words. For same-count reinterpretations this gives what `OpBitcast`
//! gives, and for different counts the same bytes as a memory round trip,
//! which is the implementation-defined result the spec allows.

use super::Lowerer;
use crate::sema::types::{Scalar, Type};
use crate::spirv::{Op, Word};

impl<'a> Lowerer<'a> {
    /// Reinterprets `x` of type `from` (not a 3-vector) as `to` (not a
    /// 3-vector) of the same size, through 32-bit words.
    pub(super) fn reinterpret_by_words(&mut self, x: Word, from: &Type, to: &Type) -> Word {
        let words = self.words_of(x, from);
        self.value_from_words(&words, to)
    }

    fn components(&mut self, x: Word, t: &Type) -> (Scalar, Vec<Word>) {
        let s = t.elem_scalar().unwrap_or(Scalar::UInt);
        if t.width() <= 1 || !t.is_vector() {
            return (s, vec![x]);
        }
        let et = self.sty(&Type::Scalar(s));
        let comps = (0..t.width())
            .map(|i| self.op(Op::CompositeExtract, et, &[x, i]))
            .collect();
        (s, comps)
    }

    fn words_of(&mut self, x: Word, t: &Type) -> Vec<Word> {
        let (s, comps) = self.components(x, t);
        let uint = self.sty(&Type::UINT);
        let mut words = Vec::new();
        match s.size() {
            8 => {
                let pair = self.sty(&Type::Vector(Scalar::UInt, 2));
                for c in comps {
                    let p = self.op(Op::Bitcast, pair, &[c]);
                    words.push(self.op(Op::CompositeExtract, uint, &[p, 0]));
                    words.push(self.op(Op::CompositeExtract, uint, &[p, 1]));
                }
            }
            4 => {
                for c in comps {
                    words.push(self.op(Op::Bitcast, uint, &[c]));
                }
            }
            n => {
                // 1- and 2-byte components: 4 or 2 of them make a word.
                let per = (4 / n.max(1)) as usize;
                let group = self.sty(&Type::Vector(s, per as u8));
                for chunk in comps.chunks(per) {
                    let v = self.op(Op::CompositeConstruct, group, chunk);
                    words.push(self.op(Op::Bitcast, uint, &[v]));
                }
            }
        }
        words
    }

    fn value_from_words(&mut self, words: &[Word], t: &Type) -> Word {
        let s = t.elem_scalar().unwrap_or(Scalar::UInt);
        let et = self.sty(&Type::Scalar(s));
        let mut comps = Vec::new();
        match s.size() {
            8 => {
                let pair = self.sty(&Type::Vector(Scalar::UInt, 2));
                for w in words.chunks(2) {
                    let p = self.op(Op::CompositeConstruct, pair, w);
                    comps.push(self.op(Op::Bitcast, et, &[p]));
                }
            }
            4 => {
                for &w in words {
                    comps.push(self.op(Op::Bitcast, et, &[w]));
                }
            }
            n => {
                let per = 4 / n.max(1);
                let group = self.sty(&Type::Vector(s, per as u8));
                for &w in words {
                    let v = self.op(Op::Bitcast, group, &[w]);
                    for i in 0..per {
                        comps.push(self.op(Op::CompositeExtract, et, &[v, i]));
                    }
                }
            }
        }
        if !t.is_vector() {
            return comps.first().copied().unwrap_or(0);
        }
        let ty = self.sty(t);
        self.op(Op::CompositeConstruct, ty, &comps)
    }
}
