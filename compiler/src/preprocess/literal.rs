//! The values of literals (C99 6.4.4, 6.4.5): pp-numbers become integer or
//! floating constants, character constants and strings lose their escapes.

/// What a pp-number is once it must be a constant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Number {
    /// Value bits, suffix lower-cased as written, radix.
    Int {
        value: u64,
        suffix: String,
        radix: u32,
    },
    /// A floating constant, kept as written.
    Float,
}

/// Classifies a pp-number; the error is the message for the build log.
pub(crate) fn parse_number(text: &str) -> Result<Number, String> {
    let b = text.as_bytes();
    let second = b.get(1).map(u8::to_ascii_lowercase);
    let (radix, digits_at) = match (b.first(), second) {
        (Some(b'0'), Some(b'x')) => (16, 2),
        (Some(b'0'), Some(b'b')) => (2, 2),
        (Some(b'0'), _) => (8, 0),
        _ => (10, 0),
    };
    let has = |set: &[u8]| b.iter().any(|c| set.contains(c));
    let is_float = match radix {
        16 => has(b".pP"),
        2 => false,
        _ => has(b".eE"),
    };
    if is_float {
        return check_float(text, radix == 16).map(|()| Number::Float);
    }
    let body = &text[digits_at..];
    let digits_len = body
        .bytes()
        .take_while(|b| b.is_ascii_hexdigit() && (radix == 16 || b.is_ascii_digit()))
        .count();
    let (digits, suffix) = body.split_at(digits_len);
    if digits.is_empty() && radix != 8 {
        return Err(format!("invalid integer constant '{text}'"));
    }
    let mut value: u64 = 0;
    let mut overflow = false;
    for d in digits.chars() {
        let v = d.to_digit(16).unwrap_or(0);
        if v >= radix {
            let kind = if radix == 8 { "octal" } else { "binary" };
            return Err(format!("invalid digit '{d}' in {kind} constant"));
        }
        match value
            .checked_mul(radix as u64)
            .and_then(|x| x.checked_add(v as u64))
        {
            Some(x) => value = x,
            None => overflow = true,
        }
    }
    if !matches!(
        suffix,
        "" | "u"
            | "U"
            | "l"
            | "L"
            | "ll"
            | "LL"
            | "ul"
            | "uL"
            | "Ul"
            | "UL"
            | "lu"
            | "lU"
            | "Lu"
            | "LU"
            | "ull"
            | "uLL"
            | "Ull"
            | "ULL"
            | "llu"
            | "llU"
            | "LLu"
            | "LLU"
    ) {
        return Err(format!(
            "invalid suffix '{suffix}' on integer constant '{text}'"
        ));
    }
    if overflow {
        return Err(format!(
            "integer constant '{text}' is too large for any integer type"
        ));
    }
    Ok(Number::Int {
        value,
        suffix: suffix.to_ascii_lowercase(),
        radix,
    })
}

/// Checks the form of a floating constant: digits, an optional point, an
/// exponent (required for hex), and a suffix `f`, `h` or `l`.
fn check_float(text: &str, hex: bool) -> Result<(), String> {
    let b = text.as_bytes();
    let mut i = if hex { 2 } else { 0 };
    let is_digit = |c: u8| {
        if hex {
            c.is_ascii_hexdigit()
        } else {
            c.is_ascii_digit()
        }
    };
    let mut mantissa_digits = 0;
    while i < b.len() && is_digit(b[i]) {
        i += 1;
        mantissa_digits += 1;
    }
    if i < b.len() && b[i] == b'.' {
        i += 1;
        while i < b.len() && is_digit(b[i]) {
            i += 1;
            mantissa_digits += 1;
        }
    }
    if mantissa_digits == 0 {
        return Err(format!("invalid floating constant '{text}'"));
    }
    let exp_char = if hex { b'p' } else { b'e' };
    if i < b.len() && b[i].to_ascii_lowercase() == exp_char {
        i += 1;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == start {
            return Err(format!("exponent has no digits in '{text}'"));
        }
    } else if hex {
        return Err(format!(
            "hexadecimal floating constant '{text}' requires an exponent"
        ));
    }
    match &text[i..] {
        "" | "f" | "F" | "h" | "H" | "l" | "L" => Ok(()),
        suffix => Err(format!(
            "invalid suffix '{suffix}' on floating constant '{text}'"
        )),
    }
}

/// What decoding a quoted literal found besides its bytes.
#[derive(Default)]
pub(crate) struct Decoded {
    pub bytes: Vec<u8>,
    pub warnings: Vec<String>,
    pub error: Option<String>,
}

/// Decodes the escapes of the text between the quotes of a character
/// constant or string literal.
pub(crate) fn decode_escapes(body: &str) -> Decoded {
    let mut out = Decoded::default();
    let b = body.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        i += 1;
        if c != b'\\' {
            out.bytes.push(c);
            continue;
        }
        let Some(&e) = b.get(i) else {
            out.bytes.push(b'\\');
            break;
        };
        i += 1;
        let simple = match e {
            b'\'' | b'"' | b'?' | b'\\' => Some(e),
            b'a' => Some(7),
            b'b' => Some(8),
            b'f' => Some(12),
            b'n' => Some(b'\n'),
            b'r' => Some(b'\r'),
            b't' => Some(b'\t'),
            b'v' => Some(11),
            _ => None,
        };
        if let Some(v) = simple {
            out.bytes.push(v);
            continue;
        }
        match e {
            b'0'..=b'7' => {
                let mut v = (e - b'0') as u32;
                let mut n = 1;
                while n < 3 && i < b.len() && (b'0'..=b'7').contains(&b[i]) {
                    v = v * 8 + (b[i] - b'0') as u32;
                    i += 1;
                    n += 1;
                }
                if v > 0xff {
                    out.error = Some("octal escape sequence out of range".into());
                }
                out.bytes.push(v as u8);
            }
            b'x' => {
                let start = i;
                let mut v: u32 = 0;
                let mut too_big = false;
                while i < b.len() && b[i].is_ascii_hexdigit() {
                    v = v
                        .saturating_mul(16)
                        .saturating_add((b[i] as char).to_digit(16).unwrap_or(0));
                    too_big |= v > 0xff;
                    i += 1;
                }
                if i == start {
                    out.error = Some("\\x used with no following hex digits".into());
                } else if too_big {
                    out.error = Some("hex escape sequence out of range".into());
                }
                out.bytes.push(v as u8);
            }
            b'u' | b'U' => {
                let want = if e == b'u' { 4 } else { 8 };
                // Bytes, not a str slice: a multi-byte character may follow
                // the escape, and a slice must not end inside it.
                let digits = &b[i..(i + want).min(b.len())];
                let code = if digits.len() == want && digits.iter().all(|d| d.is_ascii_hexdigit()) {
                    std::str::from_utf8(digits)
                        .ok()
                        .and_then(|d| u32::from_str_radix(d, 16).ok())
                        .and_then(char::from_u32)
                } else {
                    None
                };
                match code {
                    Some(ch) => {
                        i += want;
                        let mut buf = [0u8; 4];
                        out.bytes
                            .extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                    }
                    None => {
                        out.error = Some("incomplete universal character name".into());
                    }
                }
            }
            other => {
                let shown = body[i - 1..].chars().next().unwrap_or('?');
                out.warnings
                    .push(format!("unknown escape sequence '\\{shown}'"));
                if other.is_ascii() {
                    out.bytes.push(other);
                } else {
                    // Keep the whole (multi-byte) character.
                    i -= 1;
                }
            }
        }
    }
    out
}

/// The value of a character constant (`'a'`), quotes included: an `int` of
/// the (signed) `char` for one character, bytes packed big-end first for
/// several (with a warning, as C99 6.4.4.4p10 leaves it to the
/// implementation).
pub(crate) fn char_value(text: &str) -> (Result<i64, String>, Vec<String>) {
    let text = text.strip_prefix('L').unwrap_or(text);
    let body = &text[1..text.len().saturating_sub(1).max(1)];
    let decoded = decode_escapes(body);
    let mut warnings = decoded.warnings;
    if let Some(e) = decoded.error {
        return (Err(e), warnings);
    }
    match decoded.bytes.as_slice() {
        [] => (Err("empty character constant".into()), warnings),
        [one] => (Ok(*one as i8 as i64), warnings),
        many => {
            warnings.push("multi-character character constant".into());
            let v = many.iter().fold(0u32, |acc, &b| (acc << 8) | b as u32);
            (Ok(v as i32 as i64), warnings)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(value: u64, suffix: &str, radix: u32) -> Number {
        Number::Int {
            value,
            suffix: suffix.into(),
            radix,
        }
    }

    #[test]
    fn integers_with_radix_and_suffix() {
        assert_eq!(parse_number("0"), Ok(int(0, "", 8)));
        assert_eq!(parse_number("42"), Ok(int(42, "", 10)));
        assert_eq!(parse_number("052"), Ok(int(42, "", 8)));
        assert_eq!(parse_number("0x2A"), Ok(int(42, "", 16)));
        assert_eq!(parse_number("0b101"), Ok(int(5, "", 2)));
        assert_eq!(parse_number("7u"), Ok(int(7, "u", 10)));
        assert_eq!(parse_number("7UL"), Ok(int(7, "ul", 10)));
        assert_eq!(parse_number("7Lu"), Ok(int(7, "lu", 10)));
        assert_eq!(parse_number("7ll"), Ok(int(7, "ll", 10)));
        assert_eq!(parse_number("7uLL"), Ok(int(7, "ull", 10)));
        assert_eq!(parse_number("7LLU"), Ok(int(7, "llu", 10)));
        assert_eq!(
            parse_number("0xffffffffffffffff"),
            Ok(int(u64::MAX, "", 16))
        );
        assert_eq!(
            parse_number("18446744073709551615u"),
            Ok(int(u64::MAX, "u", 10))
        );
    }

    #[test]
    fn bad_integers() {
        assert!(parse_number("09").unwrap_err().contains("octal"));
        assert!(parse_number("1lL").is_err());
        assert!(parse_number("1f").is_err());
        assert!(parse_number("1uu").is_err());
        assert!(parse_number("0x").is_err());
        assert!(parse_number("18446744073709551616")
            .unwrap_err()
            .contains("too large"));
        assert!(parse_number("1abc").is_err());
    }

    #[test]
    fn floats() {
        for ok in [
            "1.0",
            "1.",
            ".5",
            "1e10",
            "1E-3",
            "2.5f",
            "2.5F",
            "1.0h",
            "1.0H",
            "1.0l",
            "0x1p3",
            "0x1.8p-1f",
            "0X.8P+2",
            "1e+5f",
            "00.5",
        ] {
            assert_eq!(parse_number(ok), Ok(Number::Float), "{ok}");
        }
        for bad in ["1e", "1.0ff", "0x1.8", "1.0q", "1.2.3", "0x1pf"] {
            assert!(parse_number(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn escapes() {
        let d = decode_escapes(r#"a\n\t\\\"\'\?\x41\101\0\a\b\f\r\v"#);
        assert_eq!(d.bytes, b"a\n\t\\\"'?AA\0\x07\x08\x0c\r\x0b");
        assert!(d.error.is_none() && d.warnings.is_empty());
        assert_eq!(decode_escapes(r"\u00e9").bytes, "é".as_bytes());
        assert!(decode_escapes(r"\x100").error.is_some());
        assert!(decode_escapes(r"\x").error.is_some());
        let d = decode_escapes(r"\q");
        assert_eq!(d.bytes, b"q");
        assert_eq!(d.warnings.len(), 1);
    }

    #[test]
    fn char_values() {
        assert_eq!(char_value("'a'").0, Ok(97));
        assert_eq!(char_value("'\\n'").0, Ok(10));
        assert_eq!(char_value("'\\xff'").0, Ok(-1));
        assert_eq!(char_value("'\\377'").0, Ok(-1));
        assert_eq!(char_value("'\\0'").0, Ok(0));
        let (v, w) = char_value("'ab'");
        assert_eq!(v, Ok(0x6162));
        assert_eq!(w.len(), 1);
        assert!(char_value("''").0.is_err());
    }
}
