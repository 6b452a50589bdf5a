//! The formatter against the C library's `snprintf`, which defines what
//! every conversion must print, and the decoding of printf buffers.

use super::*;
use std::ffi::{c_char, c_int, c_long, c_void, CString};

extern "C" {
    fn snprintf(buf: *mut c_char, size: usize, format: *const c_char, ...) -> c_int;
}

/// A value handed to `snprintf`, as C's default argument promotions make it.
#[derive(Clone, Copy)]
enum CValue {
    Int(c_int),
    Long(c_long),
    Double(f64),
    Str(*const c_char),
    Ptr(*const c_void),
}

fn c_format(format: &str, value: CValue) -> Vec<u8> {
    let format = CString::new(format).unwrap();
    let mut buf = vec![0u8; 4096];
    // SAFETY: the buffer is as long as claimed, the format is a C string
    // with one conversion whose type matches the value passed.
    let n = unsafe {
        let out = buf.as_mut_ptr() as *mut c_char;
        let f = format.as_ptr();
        match value {
            CValue::Int(v) => snprintf(out, buf.len(), f, v),
            CValue::Long(v) => snprintf(out, buf.len(), f, v),
            CValue::Double(v) => snprintf(out, buf.len(), f, v),
            CValue::Str(v) => snprintf(out, buf.len(), f, v),
            CValue::Ptr(v) => snprintf(out, buf.len(), f, v),
        }
    };
    assert!(
        n >= 0 && (n as usize) < buf.len(),
        "snprintf({format:?}) gave {n}"
    );
    buf.truncate(n as usize);
    buf
}

fn ours(format: &str, args: &[PrintfArg], strings: &[String]) -> Vec<u8> {
    let mut out = Vec::new();
    format_record(&mut out, format.as_bytes(), args, strings);
    out
}

fn scalar(kind: u32, value: u64) -> PrintfArg {
    PrintfArg {
        kind,
        components: vec![value],
    }
}

/// xorshift64*: deterministic values without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

fn flags(rng: &mut Rng) -> String {
    let mut s = String::new();
    for f in ['-', '+', ' ', '#', '0'] {
        if rng.below(4) == 0 {
            s.push(f);
        }
    }
    s
}

fn width_and_precision(rng: &mut Rng, precisions: &[&str]) -> String {
    let width = *rng.pick(&["", "", "1", "5", "12", "30"]);
    let precision = *rng.pick(precisions);
    format!("{width}{precision}")
}

fn check(format: &str, args: &[PrintfArg], value: CValue, strings: &[String]) {
    let want = c_format(format, value);
    let got = ours(format, args, strings);
    assert_eq!(
        String::from_utf8_lossy(&got),
        String::from_utf8_lossy(&want),
        "format {format:?}, arguments {args:?}"
    );
}

#[test]
fn integers_match_snprintf() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let edges = [
        0u64,
        1,
        u64::MAX,
        0x7F,
        0x80,
        0xFF,
        0x7FFF,
        0x8000,
        0xFFFF,
        0x7FFF_FFFF,
        0x8000_0000,
        0xFFFF_FFFF,
        i64::MAX as u64,
        i64::MIN as u64,
    ];
    for case in 0..40_000 {
        let raw = if case % 4 == 0 {
            *rng.pick(&edges)
        } else {
            // Values of every magnitude, not only huge ones.
            rng.next() >> rng.below(64)
        };
        let conversion = *rng.pick(&['d', 'i', 'o', 'u', 'x', 'X']);
        let length = *rng.pick(&["hh", "h", "", "l"]);
        let format = format!(
            "<%{}{}{length}{conversion}>",
            flags(&mut rng),
            width_and_precision(&mut rng, &["", "", ".", ".0", ".1", ".3", ".10", ".22"])
        );
        let value = if length == "l" {
            CValue::Long(raw as i64 as c_long)
        } else {
            CValue::Int(raw as u32 as c_int)
        };
        let kind = if matches!(conversion, 'd' | 'i') {
            KIND_SIGNED
        } else {
            KIND_UNSIGNED
        };
        check(&format, &[scalar(kind, raw)], value, &[]);
    }
}

/// Doubles of every kind: random bits (NaNs, infinities, subnormals
/// included), floats widened, small decimals, exact ties of decimal and
/// hexadecimal rounding.
fn float_value(rng: &mut Rng, case: usize) -> f64 {
    match case % 6 {
        0 => f64::from_bits(rng.next()),
        1 => f32::from_bits(rng.next() as u32) as f64,
        2 => (rng.next() as i64 >> rng.below(64)) as f64 / 1000.0,
        3 => (rng.below(4096) as f64 - 2048.0) / 64.0,
        4 => *rng.pick(&[
            0.0,
            -0.0,
            0.5,
            1.5,
            2.5,
            9.5,
            0.125,
            1e15 + 0.5,
            99999.95,
            0.0001,
            0.00001,
            123456.0,
            1e-320,
            f64::MIN_POSITIVE,
            f64::MAX,
            f64::INFINITY,
            -f64::INFINITY,
            f64::NAN,
            -f64::NAN,
            1.0 + f64::EPSILON,
            1.999_999_999_999_999_8,
            1.03125,
            1.09375,
        ]),
        _ => {
            let scale = 10f64.powi(rng.below(40) as i32 - 20);
            (rng.below(2_000_000) as f64 - 1_000_000.0) * scale
        }
    }
}

#[test]
fn floats_match_snprintf() {
    let mut rng = Rng(0x1234_5678_9ABC_DEF1);
    for case in 0..60_000 {
        let x = float_value(&mut rng, case);
        let conversion = *rng.pick(&['f', 'F', 'e', 'E', 'g', 'G', 'a', 'A']);
        let format = format!(
            "[%{}{}{conversion}]",
            flags(&mut rng),
            width_and_precision(
                &mut rng,
                &["", "", ".", ".0", ".1", ".2", ".3", ".6", ".12", ".13", ".17", ".30"]
            )
        );
        let arg = scalar(KIND_DOUBLE, x.to_bits());
        check(&format, &[arg], CValue::Double(x), &[]);
    }
}

#[test]
fn float_arguments_print_as_the_double_they_widen_to() {
    let mut rng = Rng(77);
    for _ in 0..10_000 {
        let f = f32::from_bits(rng.next() as u32);
        for format in ["%f", "%e", "%g", "%a", "%.3A", "%#.0g", "%10.4f"] {
            check(
                format,
                &[scalar(KIND_FLOAT, f.to_bits() as u64)],
                CValue::Double(f as f64),
                &[],
            );
        }
    }
}

#[test]
fn characters_strings_pointers_and_percent() {
    let strings = vec!["hello".to_string(), String::new(), "with\0nul".to_string()];
    let c_strings: Vec<CString> = ["hello", "", "with"]
        .iter()
        .map(|s| CString::new(*s).unwrap())
        .collect();
    let mut rng = Rng(5);
    for _ in 0..5_000 {
        let width = *rng.pick(&["", "3", "9"]);
        let minus = *rng.pick(&["", "-"]);
        let byte = rng.below(256) as u64;
        let format = format!("%{minus}{width}c");
        check(
            &format,
            &[scalar(KIND_SIGNED, byte)],
            CValue::Int(byte as c_int),
            &strings,
        );
        let id = rng.below(3);
        let precision = *rng.pick(&["", ".", ".0", ".2", ".10"]);
        let format = format!("%{minus}{width}{precision}s");
        check(
            &format,
            &[scalar(KIND_STRING, id as u64)],
            CValue::Str(c_strings[id].as_ptr()),
            &strings,
        );
        let address = rng.next() >> rng.below(64);
        let format = format!("%{minus}{width}p");
        check(
            &format,
            &[scalar(KIND_POINTER, address)],
            CValue::Ptr(address as usize as *const c_void),
            &strings,
        );
    }
    assert_eq!(ours("100%% sure", &[], &[]), b"100% sure");
}

#[test]
fn vectors_join_components_with_commas() {
    let f4 = PrintfArg {
        kind: KIND_FLOAT,
        components: [1.0f32, 2.0, 3.0, 4.0]
            .iter()
            .map(|f| f.to_bits() as u64)
            .collect(),
    };
    assert_eq!(
        ours("f4 = %2.2v4hlf\n", &[f4], &[]),
        b"f4 = 1.00,2.00,3.00,4.00\n"
    );
    let uc = PrintfArg {
        kind: KIND_UNSIGNED,
        components: vec![0xFA, 0xFB, 0xFC, 0xFD],
    };
    assert_eq!(
        ours("uc = %#v4hhx\n", &[uc], &[]),
        b"uc = 0xfa,0xfb,0xfc,0xfd\n"
    );
    let i3 = PrintfArg {
        kind: KIND_SIGNED,
        components: vec![-1i64 as u64, 0, 7],
    };
    assert_eq!(ours("(%+4v3hld)", &[i3], &[]), b"(  -1,  +0,  +7)");
    let s2 = PrintfArg {
        kind: KIND_SIGNED,
        components: vec![-1i64 as u64, 40000],
    };
    assert_eq!(
        ours("%v2hd %v2hu", &[s2.clone(), s2], &[]),
        b"-1,-25536 65535,40000"
    );
    let d2 = PrintfArg {
        kind: KIND_DOUBLE,
        components: vec![0.5f64.to_bits(), (-2.0f64).to_bits()],
    };
    assert_eq!(
        ours("%v2le|%v2la", &[d2.clone(), d2], &[]),
        b"5.000000e-01,-2.000000e+00|0x1p-1,-0x1p+1"
    );
}

#[test]
fn odd_formats_are_copied_and_extra_arguments_ignored() {
    let one = scalar(KIND_SIGNED, 1);
    // Invalid specifications are copied; no argument is consumed by them.
    assert_eq!(
        ours("%lld %k %d", std::slice::from_ref(&one), &[]),
        b"%lld %k 1"
    );
    assert_eq!(
        ours("%v5d|%hlf|%d", std::slice::from_ref(&one), &[]),
        b"%v5d|%hlf|1"
    );
    assert_eq!(ours("%d", &[one.clone(), one.clone()], &[]), b"1");
    assert_eq!(ours("%d %d", &[one], &[]), b"1 %d");
    assert_eq!(ours("ab\0cd", &[], &[]), b"ab");
    assert_eq!(ours("50%", &[], &[]), b"50%");
}

/// A printf buffer as a kernel leaves it.
struct BufferImage {
    bytes: Vec<u8>,
}

impl BufferImage {
    fn new(size: usize) -> BufferImage {
        let mut bytes = vec![0u8; size];
        bytes[0..4].copy_from_slice(&8u32.to_ne_bytes());
        bytes[4..8].copy_from_slice(&(size as u32).to_ne_bytes());
        BufferImage { bytes }
    }

    /// Appends a record the way the kernel does: reserve, then write if it
    /// fits.
    fn printf(&mut self, format_id: u32, args: &[PrintfArg]) -> bool {
        let size: usize = 8 + args
            .iter()
            .map(|a| 8 + 8 * a.components.len())
            .sum::<usize>();
        let at = u32::from_ne_bytes(self.bytes[0..4].try_into().unwrap()) as usize;
        self.bytes[0..4].copy_from_slice(&((at + size) as u32).to_ne_bytes());
        if at + size > self.bytes.len() {
            return false;
        }
        let mut words: Vec<u8> = Vec::new();
        words.extend_from_slice(&format_id.to_ne_bytes());
        words.extend_from_slice(&(size as u32).to_ne_bytes());
        for a in args {
            words.extend_from_slice(&a.kind.to_ne_bytes());
            words.extend_from_slice(&(a.components.len() as u32).to_ne_bytes());
            for c in &a.components {
                words.extend_from_slice(&c.to_ne_bytes());
            }
        }
        self.bytes[at..at + size].copy_from_slice(&words);
        true
    }
}

#[test]
fn decode_prints_records_in_buffer_order_and_drops_what_did_not_fit() {
    let strings = vec!["item %d of %s\n".to_string(), "list".to_string()];
    let mut image = BufferImage::new(8 + 3 * 40 + 16);
    for i in 0..5 {
        let fit = image.printf(0, &[scalar(KIND_SIGNED, i), scalar(KIND_STRING, 1)]);
        assert_eq!(fit, i < 3);
    }
    let (text, used) = decode(&image.bytes, &strings);
    assert_eq!(
        String::from_utf8(text).unwrap(),
        "item 0 of list\nitem 1 of list\nitem 2 of list\n"
    );
    // Every byte up to the end of the buffer may hold a record.
    assert_eq!(used, image.bytes.len());
    let mut short = BufferImage::new(256);
    short.printf(0, &[scalar(KIND_SIGNED, 9), scalar(KIND_STRING, 1)]);
    let (text, used) = decode(&short.bytes, &strings);
    assert_eq!(text, b"item 9 of list\n");
    assert_eq!(used, 8 + 40);
}

#[test]
fn decode_ignores_a_damaged_buffer() {
    let strings = vec!["x\n".to_string()];
    // Used past the end, a size that is not a multiple of 8, a format id
    // out of range, an argument count past the record: none may panic.
    let mut bytes = vec![0u8; 64];
    bytes[0..4].copy_from_slice(&1000u32.to_ne_bytes());
    bytes[8..12].copy_from_slice(&0u32.to_ne_bytes());
    bytes[12..16].copy_from_slice(&8u32.to_ne_bytes());
    bytes[16..20].copy_from_slice(&9u32.to_ne_bytes());
    bytes[20..24].copy_from_slice(&24u32.to_ne_bytes());
    bytes[24..28].copy_from_slice(&0u32.to_ne_bytes());
    bytes[28..32].copy_from_slice(&1000u32.to_ne_bytes());
    bytes[40..44].copy_from_slice(&0u32.to_ne_bytes());
    bytes[44..48].copy_from_slice(&12u32.to_ne_bytes());
    let (text, _) = decode(&bytes, &strings);
    assert_eq!(text, b"x\n");
    assert_eq!(decode(&[1, 2], &strings).0, b"");
}
