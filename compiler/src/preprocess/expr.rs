//! `#if` constant expressions (C99 6.10.1): evaluated in `intmax_t` and
//! `uintmax_t` (64 bits here), with the usual arithmetic conversions, short
//! circuits, and identifiers left after macro expansion as 0.

use super::lexer::{PpKind, PpTok};
use super::literal::{char_value, parse_number, Number};
use crate::diag::Diagnostics;
use crate::token::Span;

/// Deepest nesting of parentheses and unary operators.
const NESTING_LIMIT: u32 = 256;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Value {
    bits: u64,
    unsigned: bool,
}

impl Value {
    fn signed(v: i64) -> Value {
        Value {
            bits: v as u64,
            unsigned: false,
        }
    }

    fn truth(b: bool) -> Value {
        Value::signed(b as i64)
    }

    fn is_true(self) -> bool {
        self.bits != 0
    }
}

/// Marks an error already reported: evaluation stops.
struct Failed;

struct Eval<'a> {
    toks: &'a [PpTok],
    pos: usize,
    diags: &'a mut Diagnostics,
    /// Where the directive is, for errors at the end of the line.
    at: Span,
    depth: u32,
}

/// Evaluates a macro-expanded `#if` line. `None` when an error was reported.
pub(crate) fn evaluate(toks: &[PpTok], diags: &mut Diagnostics, at: Span) -> Option<bool> {
    let mut e = Eval {
        toks,
        pos: 0,
        diags,
        at,
        depth: 0,
    };
    let v = e.comma(true).ok()?;
    if let Some(t) = e.toks.get(e.pos) {
        e.diags.error(
            t.span,
            "token is not a valid binary operator in a preprocessor subexpression",
        );
        return None;
    }
    Some(v.is_true())
}

/// `x` shifted by `count` bits, left or right (arithmetic for a signed `x`).
fn shift(x: u64, unsigned: bool, count: u64, left: bool) -> u64 {
    match (left, count >= 64) {
        (true, true) => 0,
        (true, false) => x << count,
        (false, true) if unsigned || (x as i64) >= 0 => 0,
        (false, true) => u64::MAX,
        (false, false) if unsigned => x >> count,
        (false, false) => ((x as i64) >> count) as u64,
    }
}

/// Binary operators with their precedence (higher binds tighter).
fn precedence(op: &str) -> Option<u8> {
    Some(match op {
        "*" | "/" | "%" => 10,
        "+" | "-" => 9,
        "<<" | ">>" => 8,
        "<" | ">" | "<=" | ">=" => 7,
        "==" | "!=" => 6,
        "&" => 5,
        "^" => 4,
        "|" => 3,
        "&&" => 2,
        "||" => 1,
        _ => return None,
    })
}

impl Eval<'_> {
    fn peek_punct(&self) -> Option<&'static str> {
        match self.toks.get(self.pos).map(|t| &t.kind) {
            Some(PpKind::Punct(p)) => Some(p),
            _ => None,
        }
    }

    fn here(&self) -> Span {
        self.toks.get(self.pos).map_or(self.at, |t| t.span)
    }

    fn fail(&mut self, span: Span, message: impl Into<String>) -> Failed {
        self.diags.error(span, message);
        Failed
    }

    fn enter(&mut self) -> Result<(), Failed> {
        self.depth += 1;
        if self.depth > NESTING_LIMIT {
            let span = self.here();
            return Err(self.fail(span, "preprocessor expression nested too deeply"));
        }
        Ok(())
    }

    /// expression: conditional-expression (`,` conditional-expression)*
    fn comma(&mut self, eval: bool) -> Result<Value, Failed> {
        let mut v = self.conditional(eval)?;
        while self.peek_punct() == Some(",") {
            self.pos += 1;
            v = self.conditional(eval)?;
        }
        Ok(v)
    }

    /// conditional-expression: logical-or-expression (`?` expression `:`
    /// conditional-expression)?
    fn conditional(&mut self, eval: bool) -> Result<Value, Failed> {
        let c = self.binary(1, eval)?;
        if self.peek_punct() != Some("?") {
            return Ok(c);
        }
        self.pos += 1;
        self.enter()?;
        let a = self.comma(eval && c.is_true())?;
        if self.peek_punct() != Some(":") {
            let span = self.here();
            return Err(self.fail(span, "expected ':' in preprocessor expression"));
        }
        self.pos += 1;
        let b = self.conditional(eval && !c.is_true())?;
        self.depth -= 1;
        let unsigned = a.unsigned || b.unsigned;
        let chosen = if c.is_true() { a } else { b };
        Ok(Value {
            bits: chosen.bits,
            unsigned,
        })
    }

    /// The binary operators, by precedence climbing.
    fn binary(&mut self, min: u8, eval: bool) -> Result<Value, Failed> {
        let mut lhs = self.unary(eval)?;
        loop {
            let Some(op) = self.peek_punct() else {
                return Ok(lhs);
            };
            let Some(prec) = precedence(op) else {
                return Ok(lhs);
            };
            if prec < min {
                return Ok(lhs);
            }
            let span = self.here();
            self.pos += 1;
            lhs = match op {
                "&&" => {
                    let rhs = self.binary(prec + 1, eval && lhs.is_true())?;
                    Value::truth(lhs.is_true() && rhs.is_true())
                }
                "||" => {
                    let rhs = self.binary(prec + 1, eval && !lhs.is_true())?;
                    Value::truth(lhs.is_true() || rhs.is_true())
                }
                _ => {
                    let rhs = self.binary(prec + 1, eval)?;
                    self.apply(op, lhs, rhs, eval, span)?
                }
            };
        }
    }

    fn overflow(&mut self, eval: bool, span: Span) {
        if eval {
            self.diags
                .warning(span, "integer overflow in preprocessor expression");
        }
    }

    fn apply(
        &mut self,
        op: &str,
        a: Value,
        b: Value,
        eval: bool,
        span: Span,
    ) -> Result<Value, Failed> {
        let unsigned = a.unsigned || b.unsigned;
        let (x, y) = (a.bits, b.bits);
        let (sx, sy) = (x as i64, y as i64);
        let arith = |bits: u64| Value { bits, unsigned };
        let v = match op {
            "*" => {
                if unsigned {
                    arith(x.wrapping_mul(y))
                } else {
                    let (r, o) = sx.overflowing_mul(sy);
                    if o {
                        self.overflow(eval, span);
                    }
                    arith(r as u64)
                }
            }
            "/" | "%" => {
                if y == 0 {
                    if eval {
                        let what = if op == "/" { "division" } else { "remainder" };
                        return Err(
                            self.fail(span, format!("{what} by zero in preprocessor expression"))
                        );
                    }
                    arith(0)
                } else if unsigned {
                    arith(if op == "/" { x / y } else { x % y })
                } else {
                    let (r, o) = if op == "/" {
                        sx.overflowing_div(sy)
                    } else {
                        sx.overflowing_rem(sy)
                    };
                    if o {
                        self.overflow(eval, span);
                    }
                    arith(r as u64)
                }
            }
            "+" | "-" => {
                if unsigned {
                    arith(if op == "+" {
                        x.wrapping_add(y)
                    } else {
                        x.wrapping_sub(y)
                    })
                } else {
                    let (r, o) = if op == "+" {
                        sx.overflowing_add(sy)
                    } else {
                        sx.overflowing_sub(sy)
                    };
                    if o {
                        self.overflow(eval, span);
                    }
                    arith(r as u64)
                }
            }
            "<<" | ">>" => {
                // Out-of-range counts are undefined in C; this follows GCC:
                // a negative count shifts the other way, and a count of 64
                // or more leaves 0 (or all sign bits, shifting right).
                let negative = !b.unsigned && sy < 0;
                let count = if negative { sy.unsigned_abs() } else { y };
                let left = (op == "<<") != negative;
                Value {
                    bits: shift(x, a.unsigned, count, left),
                    unsigned: a.unsigned,
                }
            }
            "<" | ">" | "<=" | ">=" => {
                let ord = if unsigned { x.cmp(&y) } else { sx.cmp(&sy) };
                Value::truth(match op {
                    "<" => ord.is_lt(),
                    ">" => ord.is_gt(),
                    "<=" => ord.is_le(),
                    _ => ord.is_ge(),
                })
            }
            "==" => Value::truth(x == y),
            "!=" => Value::truth(x != y),
            "&" => arith(x & y),
            "^" => arith(x ^ y),
            "|" => arith(x | y),
            _ => return Err(self.fail(span, format!("'{op}' is not valid here"))),
        };
        Ok(v)
    }

    /// unary-expression: (`+` | `-` | `~` | `!`) unary-expression | primary
    fn unary(&mut self, eval: bool) -> Result<Value, Failed> {
        let Some(t) = self.toks.get(self.pos) else {
            return Err(self.fail(self.at, "expected value in expression"));
        };
        let span = t.span;
        match &t.kind {
            PpKind::Punct(op @ ("+" | "-" | "~" | "!")) => {
                let op = *op;
                self.pos += 1;
                self.enter()?;
                let v = self.unary(eval)?;
                self.depth -= 1;
                Ok(match op {
                    "+" => v,
                    "-" => {
                        if !v.unsigned && v.bits == i64::MIN as u64 {
                            self.overflow(eval, span);
                        }
                        Value {
                            bits: v.bits.wrapping_neg(),
                            unsigned: v.unsigned,
                        }
                    }
                    "~" => Value {
                        bits: !v.bits,
                        unsigned: v.unsigned,
                    },
                    _ => Value::truth(!v.is_true()),
                })
            }
            PpKind::Punct("(") => {
                self.pos += 1;
                self.enter()?;
                let v = self.comma(eval)?;
                self.depth -= 1;
                if self.peek_punct() != Some(")") {
                    let span = self.here();
                    return Err(self.fail(span, "expected ')' in preprocessor expression"));
                }
                self.pos += 1;
                Ok(v)
            }
            PpKind::Number(text) => {
                self.pos += 1;
                match parse_number(text) {
                    Ok(Number::Int { value, suffix, .. }) => Ok(Value {
                        bits: value,
                        unsigned: suffix.contains('u') || value > i64::MAX as u64,
                    }),
                    Ok(Number::Float) => {
                        Err(self.fail(span, "floating point literal in preprocessor expression"))
                    }
                    Err(message) => Err(self.fail(span, message)),
                }
            }
            PpKind::Char(text) => {
                self.pos += 1;
                match char_value(text).0 {
                    Ok(v) => Ok(Value::signed(v)),
                    Err(message) => Err(self.fail(span, message)),
                }
            }
            // An identifier that is no macro (C99 6.10.1p4).
            PpKind::Ident(_) => {
                self.pos += 1;
                Ok(Value::signed(0))
            }
            _ => Err(self.fail(span, "invalid token at start of a preprocessor expression")),
        }
    }
}
