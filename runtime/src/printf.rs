//! OpenCL C `printf`: the printf buffers of a queue, their reset before a
//! launch, and the host-side decoding and formatting of the records a
//! kernel wrote (the buffer and record layout are in `ferrocl_compiler`'s
//! crate docs, "printf").
//!
//! Each launch of a printf kernel takes its own buffer from the queue's
//! pool (several printf kernels may sit in one batch, and each must get
//! all of its output), and gives it back once its records are printed.
//! The header (bytes used = 8, size) is reset by fills recorded in the
//! command stream before the dispatch. After the command completes, the
//! queue's completion step formats the records in buffer order and writes
//! them to the process's stdout, before the command's event becomes
//! `CL_COMPLETE`.
//!
//! The formatting follows the OpenCL C spec (6.15.14), which is C99's
//! `printf` plus vector specifiers; the text of every conversion matches
//! glibc's (`inf`/`nan` spellings, `(nil)` for a null `%p`, `%a` with a
//! normalized leading digit). Floats are printed as the doubles they widen
//! to, which is what C does with a `float` passed through `...`.

use crate::cl::*;
use crate::queue::Recorder;
use crate::vk_error;
use ferrocl_compiler::CompiledProgram;
use ferrocl_vk::{Buffer, MemoryLocation};
use parking_lot::Mutex;
use std::io::Write;
use std::sync::Arc;

/// Free buffers a queue keeps between launches; buffers beyond this many
/// (from bursts of printf kernels in flight) are freed when they come back.
const POOL_KEEP: usize = 4;

/// Record kinds, as the compiler writes them.
const KIND_SIGNED: u32 = 0;
const KIND_UNSIGNED: u32 = 1;
const KIND_FLOAT: u32 = 2;
const KIND_DOUBLE: u32 = 3;
const KIND_STRING: u32 = 4;
const KIND_POINTER: u32 = 5;

/// The printf buffers of one queue. Allocated lazily: a queue that never
/// runs a printf kernel has none.
pub struct PrintfPool {
    free: Mutex<Vec<Arc<Buffer>>>,
    size: u64,
}

impl PrintfPool {
    /// A pool of buffers of `size` bytes (`CL_DEVICE_PRINTF_BUFFER_SIZE`).
    pub fn new(size: usize) -> Arc<PrintfPool> {
        Arc::new(PrintfPool {
            free: Mutex::new(Vec::new()),
            size: (size as u64).clamp(16, u32::MAX as u64) & !7,
        })
    }

    /// A buffer whose bytes past the header are all zero (see `release`).
    fn take(&self, device: &ferrocl_vk::Device) -> Result<Arc<Buffer>, cl_int> {
        if let Some(buffer) = self.free.lock().pop() {
            return Ok(buffer);
        }
        let buffer = device
            .create_buffer(self.size, MemoryLocation::DeviceToHost)
            .map_err(vk_error)?;
        let ptr = buffer.mapped_ptr().ok_or(CL_OUT_OF_RESOURCES)?;
        // SAFETY: the buffer is mapped, `size` bytes long, and no command
        // has used it yet.
        unsafe { std::ptr::write_bytes(ptr.as_ptr(), 0, self.size as usize) };
        Ok(Arc::new(buffer))
    }

    /// Returns a buffer whose launch has completed and been printed, after
    /// zeroing the records it held: a record's size of 0 then marks where
    /// the records of the next launch end (a record that did not fit is
    /// never written, and stale bytes must not pass for it).
    fn release(&self, buffer: Arc<Buffer>, used: usize) {
        if let Some(ptr) = buffer.mapped_ptr() {
            let end = used.min(self.size as usize);
            if end > 8 {
                // SAFETY: mapped, `end <= size`, and the launch that wrote
                // the buffer has completed; no command uses it until it is
                // taken from the pool again.
                unsafe { std::ptr::write_bytes(ptr.as_ptr().add(8), 0, end - 8) };
            }
        }
        let mut free = self.free.lock();
        if free.len() < POOL_KEEP {
            free.push(buffer);
        }
    }
}

/// Records the reset of a printf buffer for one launch, and the printing
/// of its records once the launch completes. Returns the buffer's device
/// address, the kernel's hidden printf argument.
pub fn record_launch_buffer(
    r: &mut Recorder<'_>,
    pool: &Arc<PrintfPool>,
    program: Arc<CompiledProgram>,
) -> Result<u64, cl_int> {
    let buffer = pool.take(r.device)?;
    // The header: bytes used (the header itself), then the buffer's size.
    // Written by the device in the command stream, right before the
    // dispatch and behind a barrier, so the kernel's atomics see it
    // whatever the device's caches held of the buffer's previous launch.
    r.stream
        .fill_buffer(&buffer, 0, 4, 8)
        .and_then(|_| r.stream.fill_buffer(&buffer, 4, 4, pool.size as u32))
        .and_then(|_| r.stream.barrier())
        .map_err(vk_error)?;
    let address = buffer.device_address();
    let pool = pool.clone();
    r.after(Box::new(move || {
        let used = print_buffer(&buffer, pool.size as usize, &program.printf_strings);
        pool.release(buffer, used);
    }));
    Ok(address)
}

/// Formats the records of a completed launch to stdout; returns how many
/// bytes the launch may have written.
fn print_buffer(buffer: &Buffer, size: usize, strings: &[String]) -> usize {
    let Some(ptr) = buffer.mapped_ptr() else {
        return 0;
    };
    // SAFETY: the buffer is mapped and `size` bytes long; the launch that
    // wrote it has completed and its writes are visible to the host (the
    // submission ends with a barrier to host reads).
    let bytes = unsafe { std::slice::from_raw_parts(ptr.as_ptr(), size) };
    let (text, used) = decode(bytes, strings);
    if !text.is_empty() {
        let mut out = std::io::stdout().lock();
        // Nothing to report a failed write to: printf's output stream is
        // the application's stdout.
        let _ = out.write_all(&text).and_then(|_| out.flush());
    }
    used
}

/// One argument of a record: its kind and its components (each 64 bits).
#[derive(Clone, Debug, PartialEq)]
pub struct PrintfArg {
    pub kind: u32,
    pub components: Vec<u64>,
}

fn read_u32(bytes: &[u8], at: usize) -> Option<u32> {
    let b = bytes.get(at..at.checked_add(4)?)?;
    Some(u32::from_ne_bytes(b.try_into().ok()?))
}

fn read_u64(bytes: &[u8], at: usize) -> Option<u64> {
    let b = bytes.get(at..at.checked_add(8)?)?;
    Some(u64::from_ne_bytes(b.try_into().ok()?))
}

/// The output of every record in a printf buffer, and how many of its
/// bytes the kernel may have written (what must be cleared before the
/// buffer is used again). Records that did not fit were never written: the
/// written ones are a prefix of the reservations, and a size of 0 or one
/// that runs past the buffer ends it.
pub fn decode(buffer: &[u8], strings: &[String]) -> (Vec<u8>, usize) {
    let mut out = Vec::new();
    let Some(used) = read_u32(buffer, 0) else {
        return (out, 0);
    };
    let end = (used as usize).min(buffer.len());
    let mut at = 8usize;
    while at + 8 <= end {
        let (Some(id), Some(size)) = (read_u32(buffer, at), read_u32(buffer, at + 4)) else {
            break;
        };
        let size = size as usize;
        if size < 8 || !size.is_multiple_of(8) || at + size > end {
            break;
        }
        let args = decode_args(&buffer[at + 8..at + size]);
        if let (Some(args), Some(format)) = (args, strings.get(id as usize)) {
            format_record(&mut out, format.as_bytes(), &args, strings);
        }
        at += size;
    }
    (out, end)
}

/// The arguments of one record (the bytes after its id and size).
fn decode_args(bytes: &[u8]) -> Option<Vec<PrintfArg>> {
    let mut args = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let kind = read_u32(bytes, at)?;
        let n = read_u32(bytes, at + 4)? as usize;
        at += 8;
        if n > 16 {
            return None;
        }
        let components = (0..n)
            .map(|i| read_u64(bytes, at + 8 * i))
            .collect::<Option<Vec<u64>>>()?;
        at += 8 * n;
        args.push(PrintfArg { kind, components });
    }
    Some(args)
}

/// Length modifiers.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Length {
    None,
    Hh,
    H,
    Hl,
    L,
}

/// One conversion specification.
#[derive(Clone, Copy, Debug)]
struct Spec {
    minus: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: usize,
    precision: Option<usize>,
    vector: Option<usize>,
    length: Length,
    conversion: u8,
}

/// Parses the conversion specification after a `%` at `format[0..]`;
/// returns it and the bytes it spans, or None when it is not a valid
/// OpenCL C specification (then the text is copied as is).
fn parse_spec(format: &[u8]) -> Option<(Spec, usize)> {
    let mut spec = Spec {
        minus: false,
        plus: false,
        space: false,
        alt: false,
        zero: false,
        width: 0,
        precision: None,
        vector: None,
        length: Length::None,
        conversion: 0,
    };
    let mut i = 0;
    while let Some(&c) = format.get(i) {
        match c {
            b'-' => spec.minus = true,
            b'+' => spec.plus = true,
            b' ' => spec.space = true,
            b'#' => spec.alt = true,
            b'0' => spec.zero = true,
            _ => break,
        }
        i += 1;
    }
    let number = |i: &mut usize| {
        let mut n = 0usize;
        while let Some(d) = format.get(*i).filter(|c| c.is_ascii_digit()) {
            n = n.saturating_mul(10).saturating_add((d - b'0') as usize);
            *i += 1;
        }
        n
    };
    spec.width = number(&mut i);
    if format.get(i) == Some(&b'.') {
        i += 1;
        spec.precision = Some(number(&mut i));
    }
    if format.get(i) == Some(&b'v') {
        i += 1;
        let start = i;
        let n = number(&mut i);
        if i == start || ![2, 3, 4, 8, 16].contains(&n) {
            return None;
        }
        spec.vector = Some(n);
    }
    let rest = &format[i.min(format.len())..];
    let (length, skip) = if rest.starts_with(b"hh") {
        (Length::Hh, 2)
    } else if rest.starts_with(b"hl") {
        (Length::Hl, 2)
    } else if rest.starts_with(b"h") {
        (Length::H, 1)
    } else if rest.starts_with(b"ll") {
        // Reserved in OpenCL C.
        return None;
    } else if rest.starts_with(b"l") || rest.starts_with(b"z") || rest.starts_with(b"t") {
        // size_t and ptrdiff_t are 64 bits on these devices.
        (Length::L, 1)
    } else {
        (Length::None, 0)
    };
    spec.length = length;
    i += skip;
    let conversion = *format.get(i)?;
    i += 1;
    let integer = matches!(conversion, b'd' | b'i' | b'o' | b'u' | b'x' | b'X');
    let float = matches!(
        conversion,
        b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A'
    );
    let valid = match conversion {
        _ if integer => true,
        // hh and l do not apply to floats; hl only with a vector.
        _ if float => matches!(
            (length, spec.vector),
            (Length::None, None) | (Length::L, _) | (Length::H | Length::Hl, Some(_))
        ),
        b'c' | b's' | b'p' => length == Length::None && spec.vector.is_none(),
        _ => false,
    };
    if !valid || (length == Length::Hl && spec.vector.is_none()) {
        return None;
    }
    spec.conversion = conversion;
    Some((spec, i))
}

/// Formats one record: the format string with its arguments, in order.
pub fn format_record(out: &mut Vec<u8>, format: &[u8], args: &[PrintfArg], strings: &[String]) {
    // The format ends at its first NUL, as a C string does.
    let format = &format[..format.iter().position(|&b| b == 0).unwrap_or(format.len())];
    let mut args = args.iter();
    let mut i = 0;
    while i < format.len() {
        let c = format[i];
        if c != b'%' {
            let next = format[i..]
                .iter()
                .position(|&b| b == b'%')
                .map_or(format.len(), |p| i + p);
            out.extend_from_slice(&format[i..next]);
            i = next;
            continue;
        }
        if format.get(i + 1) == Some(&b'%') {
            out.push(b'%');
            i += 2;
            continue;
        }
        let Some((spec, len)) = parse_spec(&format[i + 1..]) else {
            out.push(b'%');
            i += 1;
            continue;
        };
        let text = &format[i..i + 1 + len];
        i += 1 + len;
        let Some(arg) = args.next() else {
            // Too few arguments is undefined; the specification is shown.
            out.extend_from_slice(text);
            continue;
        };
        let count = if spec.vector.is_some() {
            arg.components.len()
        } else {
            arg.components.len().min(1)
        };
        for (k, &value) in arg.components[..count].iter().enumerate() {
            if k > 0 {
                out.push(b',');
            }
            format_value(out, &spec, arg.kind, value, strings);
        }
    }
}

/// Formats one scalar value (one vector component) under `spec`.
fn format_value(out: &mut Vec<u8>, spec: &Spec, kind: u32, value: u64, strings: &[String]) {
    match spec.conversion {
        b'd' | b'i' | b'o' | b'u' | b'x' | b'X' => {
            let raw = match kind {
                // A float given to an integer conversion is undefined; its
                // value (not its bits) is the least surprising output.
                KIND_FLOAT => f32::from_bits(value as u32) as i64 as u64,
                KIND_DOUBLE => f64::from_bits(value) as i64 as u64,
                _ => value,
            };
            format_integer(out, spec, raw);
        }
        b'c' => {
            let byte = [value as u8];
            pad(out, spec, b"", &byte, false);
        }
        b's' => {
            let text = match kind {
                KIND_STRING => strings
                    .get(value as usize)
                    .map_or(&[][..], |s| s.as_bytes()),
                _ => &[][..],
            };
            let text = &text[..text.iter().position(|&b| b == 0).unwrap_or(text.len())];
            let text = &text[..spec.precision.map_or(text.len(), |p| p.min(text.len()))];
            pad(out, spec, b"", text, false);
        }
        b'p' => {
            if value == 0 {
                pad(out, spec, b"", b"(nil)", false);
            } else {
                let sign: &[u8] = if spec.plus {
                    b"+"
                } else if spec.space {
                    b" "
                } else {
                    b""
                };
                let digits = format!("{value:x}");
                let mut prefix = sign.to_vec();
                prefix.extend_from_slice(b"0x");
                pad(out, spec, &prefix, digits.as_bytes(), spec.zero);
            }
        }
        _ => {
            let x = match kind {
                KIND_FLOAT => f32::from_bits(value as u32) as f64,
                KIND_DOUBLE => f64::from_bits(value),
                KIND_SIGNED => value as i64 as f64,
                KIND_UNSIGNED | KIND_POINTER | KIND_STRING => value as f64,
                _ => f64::NAN,
            };
            format_float(out, spec, x);
        }
    }
}

/// Writes `prefix` and `body` padded to the field width: zeros between
/// them when `zeros`, else spaces on the left (or right with `-`).
fn pad(out: &mut Vec<u8>, spec: &Spec, prefix: &[u8], body: &[u8], zeros: bool) {
    let len = prefix.len() + body.len();
    let fill = spec.width.saturating_sub(len);
    if spec.minus {
        out.extend_from_slice(prefix);
        out.extend_from_slice(body);
        out.resize(out.len() + fill, b' ');
    } else if zeros {
        out.extend_from_slice(prefix);
        out.resize(out.len() + fill, b'0');
        out.extend_from_slice(body);
    } else {
        out.resize(out.len() + fill, b' ');
        out.extend_from_slice(prefix);
        out.extend_from_slice(body);
    }
}

/// d i o u x X: the value converted to the type the length modifier names
/// (int without one), then printed.
fn format_integer(out: &mut Vec<u8>, spec: &Spec, raw: u64) {
    let bits = match spec.length {
        Length::Hh => 8,
        Length::H => 16,
        Length::Hl | Length::None => 32,
        Length::L => 64,
    };
    let shift = 64 - bits;
    let signed = matches!(spec.conversion, b'd' | b'i');
    let (negative, magnitude) = if signed {
        let v = ((raw << shift) as i64) >> shift;
        (v < 0, v.unsigned_abs())
    } else {
        (false, (raw << shift) >> shift)
    };
    let mut digits = match spec.conversion {
        b'o' => format!("{magnitude:o}"),
        b'x' => format!("{magnitude:x}"),
        b'X' => format!("{magnitude:X}"),
        _ => magnitude.to_string(),
    }
    .into_bytes();
    if let Some(p) = spec.precision {
        if p == 0 && magnitude == 0 {
            digits.clear();
        }
        if digits.len() < p {
            let mut padded = vec![b'0'; p - digits.len()];
            padded.extend_from_slice(&digits);
            digits = padded;
        }
    }
    if spec.alt && spec.conversion == b'o' && digits.first() != Some(&b'0') {
        digits.insert(0, b'0');
    }
    let mut prefix: Vec<u8> = Vec::new();
    if signed {
        if negative {
            prefix.push(b'-');
        } else if spec.plus {
            prefix.push(b'+');
        } else if spec.space {
            prefix.push(b' ');
        }
    }
    if spec.alt && magnitude != 0 {
        match spec.conversion {
            b'x' => prefix.extend_from_slice(b"0x"),
            b'X' => prefix.extend_from_slice(b"0X"),
            _ => {}
        }
    }
    let zeros = spec.zero && !spec.minus && spec.precision.is_none();
    pad(out, spec, &prefix, &digits, zeros);
}

/// f F e E g G a A.
fn format_float(out: &mut Vec<u8>, spec: &Spec, x: f64) {
    let upper = spec.conversion.is_ascii_uppercase();
    let mut prefix: Vec<u8> = Vec::new();
    if x.is_sign_negative() {
        prefix.push(b'-');
    } else if spec.plus {
        prefix.push(b'+');
    } else if spec.space {
        prefix.push(b' ');
    }
    let a = x.abs();
    if !a.is_finite() {
        let body: &[u8] = match (a.is_nan(), upper) {
            (true, false) => b"nan",
            (true, true) => b"NAN",
            (false, false) => b"inf",
            (false, true) => b"INF",
        };
        pad(out, spec, &prefix, body, false);
        return;
    }
    let body = match spec.conversion.to_ascii_lowercase() {
        b'f' => fixed(a, spec.precision.unwrap_or(6), spec.alt),
        b'e' => exponential(a, spec.precision.unwrap_or(6), spec.alt),
        b'g' => general(a, spec.precision, spec.alt),
        _ => {
            prefix.extend_from_slice(b"0x");
            hexadecimal(a, spec.precision, spec.alt)
        }
    };
    let body = if upper {
        body.to_ascii_uppercase()
    } else {
        body
    };
    if upper {
        prefix.make_ascii_uppercase();
    }
    pad(
        out,
        spec,
        &prefix,
        body.as_bytes(),
        spec.zero && !spec.minus,
    );
}

/// `%f` of a non-negative finite value: Rust's fixed-precision formatting
/// is exact and rounds ties to even, as glibc does.
fn fixed(a: f64, precision: usize, alt: bool) -> String {
    let mut s = format!("{a:.precision$}");
    if alt && precision == 0 {
        s.push('.');
    }
    s
}

/// The digits `d.ddd` of `a` rounded to `precision` places after the
/// point, and the decimal exponent.
fn scientific(a: f64, precision: usize) -> (String, i32) {
    let s = format!("{a:.precision$e}");
    match s.split_once('e') {
        Some((mantissa, exponent)) => (mantissa.to_string(), exponent.parse().unwrap_or(0)),
        None => (s, 0),
    }
}

/// `d.ddde±dd`.
fn exponent_text(mantissa: &str, exponent: i32) -> String {
    let sign = if exponent < 0 { '-' } else { '+' };
    format!("{mantissa}e{sign}{:02}", exponent.unsigned_abs())
}

/// `%e` of a non-negative finite value.
fn exponential(a: f64, precision: usize, alt: bool) -> String {
    let (mut mantissa, exponent) = scientific(a, precision);
    if alt && precision == 0 {
        mantissa.push('.');
    }
    exponent_text(&mantissa, exponent)
}

/// Removes trailing zeros after the point, and then the point itself.
fn strip_fraction(s: &mut String) {
    if s.contains('.') {
        let kept = s.trim_end_matches('0').trim_end_matches('.').len();
        s.truncate(kept);
    }
}

/// `%g` of a non-negative finite value.
fn general(a: f64, precision: Option<usize>, alt: bool) -> String {
    let p = match precision {
        None => 6,
        Some(0) => 1,
        Some(p) => p,
    };
    // The exponent that style e would show, after its rounding.
    let (mut mantissa, x) = scientific(a, p - 1);
    if (p as i64) > x as i64 && x >= -4 {
        let mut s = fixed(a, (p as i64 - 1 - x as i64) as usize, alt);
        if !alt {
            strip_fraction(&mut s);
        }
        s
    } else {
        if alt {
            if !mantissa.contains('.') {
                mantissa.push('.');
            }
        } else {
            strip_fraction(&mut mantissa);
        }
        exponent_text(&mantissa, x)
    }
}

/// `%a` of a non-negative finite value (the part after `0x`): a normalized
/// leading 1 (0 for zero and subnormals), the fraction in hex digits, a
/// binary exponent. With a precision the value is rounded to nearest, ties
/// to even; a carry may make the leading digit 2.
fn hexadecimal(a: f64, precision: Option<usize>, alt: bool) -> String {
    let bits = a.to_bits();
    let biased = (bits >> 52) as i64;
    let fraction = bits & ((1u64 << 52) - 1);
    let (lead, exponent) = match (biased, fraction) {
        (0, 0) => (0u64, 0i64),
        (0, _) => (0, -1022),
        _ => (1, biased - 1023),
    };
    let (lead, digits) = match precision {
        None => {
            let text = format!("{fraction:013x}");
            (lead, text.trim_end_matches('0').to_string())
        }
        Some(p) if p >= 13 => (lead, format!("{fraction:013x}{}", "0".repeat(p - 13))),
        Some(p) => {
            let full = (lead << 52) | fraction;
            let drop = 52 - 4 * p as u32;
            let mut kept = full >> drop;
            let rest = full & ((1u64 << drop) - 1);
            let half = 1u64 << (drop - 1);
            if rest > half || (rest == half && kept & 1 == 1) {
                kept += 1;
            }
            let frac = kept & ((1u64 << (4 * p)) - 1);
            let text = if p == 0 {
                String::new()
            } else {
                format!("{frac:0width$x}", width = p)
            };
            (kept >> (4 * p), text)
        }
    };
    let point = if digits.is_empty() && !alt { "" } else { "." };
    let sign = if exponent < 0 { '-' } else { '+' };
    format!("{lead:x}{point}{digits}p{sign}{}", exponent.unsigned_abs())
}

#[cfg(test)]
mod tests;
