//! Units. A GiB is 2^30 bytes, a GB is 10^9 bytes; vLLM logs GiB.

pub const KIB: u64 = 1 << 10;
pub const MIB: u64 = 1 << 20;
pub const GIB: u64 = 1 << 30;
pub const GB: u64 = 1_000_000_000;

/// Bytes as GiB, for display only (never fed back into integer arithmetic).
pub fn gib(bytes: u64) -> f64 {
    bytes as f64 / GIB as f64
}

/// Bytes as MiB, for display only.
pub fn mib(bytes: u64) -> f64 {
    bytes as f64 / MIB as f64
}

/// Bytes as GB (10^9), for display only.
pub fn gb(bytes: u64) -> f64 {
    bytes as f64 / GB as f64
}

/// `ceil(a / b)` for token and block counts; `b == 0` gives 0 rather than a panic
/// (callers validate divisors; this keeps the core total).
pub fn div_ceil(a: u64, b: u64) -> u64 {
    if b == 0 {
        0
    } else {
        a.div_ceil(b)
    }
}

/// Least common multiple (saturating; 0 if either is 0).
pub fn lcm(a: u64, b: u64) -> u64 {
    if a == 0 || b == 0 {
        return 0;
    }
    let (mut x, mut y) = (a, b);
    while y != 0 {
        (x, y) = (y, x % y);
    }
    (a / x).saturating_mul(b)
}

/// `floor(a / b)`; `b == 0` gives 0.
pub fn div_floor(a: u64, b: u64) -> u64 {
    a.checked_div(b).unwrap_or(0)
}

/// A non-negative float as `u64`, rounding toward zero; NaN and negatives give
/// 0 and values past `u64::MAX` saturate (Rust's `as` semantics, made explicit).
/// The one place the crate turns floats back into counts.
#[allow(clippy::cast_possible_truncation)]
pub fn saturating_u64(v: f64) -> u64 {
    if v.is_nan() || v <= 0.0 {
        0
    } else {
        v as u64
    }
}

/// Every byte of `s` an ASCII digit (true of "").
fn ascii_digits(s: &str) -> bool {
    s.bytes().all(|b| b.is_ascii_digit())
}

/// A non-negative token count, read as vLLM reads one ([`parse_human_int`]):
/// `16K` = 16 x 1024 (the harness's labels, `120K` = 122,880), `16k` = 16,000.
pub fn parse_tokens(text: &str) -> Option<u64> {
    parse_human_int(text).and_then(|n| u64::try_from(n).ok())
}

/// A whole number as vLLM's `human_readable_int` reads it
/// (`vllm/engine/arg_utils.py`): lowercase suffixes are decimal and take
/// decimals (`32k` = 32,000, `25.6k` = 25,600, `1m` = 1,000,000), uppercase
/// ones binary and whole (`32K` = 32,768, `1M` = 1,048,576; `1.5K` is
/// refused); no suffix is a plain integer. The one parser of every
/// token-count flag and field.
pub fn parse_human_int(text: &str) -> Option<i64> {
    let t = text.trim();
    let last = t.chars().last()?;
    let num = &t[..t.len() - last.len_utf8()];
    let digits = |s: &str| !s.is_empty() && ascii_digits(s);
    let decimal = |s: &str| match s.split_once('.') {
        Some((a, b)) => digits(a) && digits(b),
        None => digits(s),
    };
    let power = |c: char| match c.to_ascii_lowercase() {
        'k' => Some(1),
        'm' => Some(2),
        'g' => Some(3),
        't' => Some(4),
        _ => None,
    };
    match power(last) {
        Some(p) if last.is_ascii_lowercase() && decimal(num) => {
            // Python's int(float(number) * 10**(3p)): an f64 product, truncated.
            let v = parse_f64(num)? * 10f64.powi(3 * p);
            (v.is_finite() && v < 9.0e15).then(|| crate::units::saturating_u64(v) as i64)
        }
        Some(p) if last.is_ascii_uppercase() && digits(num) => {
            num.parse::<i64>().ok()?.checked_mul(1i64 << (10 * p))
        }
        Some(_) => None,
        None => t.parse::<i64>().ok(),
    }
}

/// The one reader of a decimal number (`0.9`, `-1.5e3`, `.5`, `+2`, `7.`):
/// digits with an optional sign, point and exponent, read by
/// `f64::from_str`; `None` for anything else, `inf`, `nan`, hexadecimal
/// and numbers beyond f64's range among them (which `from_str` would take
/// or turn into infinities).
pub fn parse_f64(text: &str) -> Option<f64> {
    let t = text.trim();
    let unsigned = t.strip_prefix(['-', '+']).unwrap_or(t);
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(i) => (unsigned.get(..i)?, unsigned.get(i + 1..)),
        None => (unsigned, None),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let exp_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['+', '-']).unwrap_or(e);
        !e.is_empty() && ascii_digits(e)
    });
    if int.is_empty() && frac.is_empty() || !ascii_digits(int) || !ascii_digits(frac) || !exp_ok {
        return None;
    }
    t.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// A number as read from text: decimals through [`parse_f64`], counts by
/// their `FromStr`.
pub trait FromText: Sized {
    fn from_text(text: &str) -> Option<Self>;
}

impl FromText for f64 {
    fn from_text(text: &str) -> Option<f64> {
        parse_f64(text)
    }
}

impl FromText for u64 {
    fn from_text(text: &str) -> Option<u64> {
        text.trim().parse().ok()
    }
}

/// The items as a sorted, duplicate-free list.
pub fn sorted_set<T: Ord>(items: impl IntoIterator<Item = T>) -> Vec<T> {
    let mut v: Vec<T> = items.into_iter().collect();
    v.sort();
    v.dedup();
    v
}

/// A float as short text at any magnitude: the shortest digits that read
/// back as `v`, with an exponent where that is shorter (serde_json's
/// writer: `1e-300`, `1e+30`, `2000.5`), so that a value far out of range is not
/// echoed as hundreds of digits; `NaN` and `inf` as Rust writes them.
pub fn short_float(v: f64) -> String {
    match serde_json::to_string(&v) {
        Ok(text) if v.is_finite() => text,
        _ => v.to_string(),
    }
}

/// Format a token count the way the harness labels contexts (`16K`, `0`, `1000`).
pub fn format_tokens(tokens: u64) -> String {
    if tokens > 0 && tokens.is_multiple_of(1024) {
        format!("{}K", tokens / 1024)
    } else {
        tokens.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_short_at_any_magnitude() {
        assert_eq!(short_float(1e-300), "1e-300");
        assert_eq!(short_float(2000.5), "2000.5");
        assert_eq!(short_float(1e30), "1e+30");
        assert_eq!(short_float(f64::NAN), "NaN");
        assert_eq!(short_float(f64::NEG_INFINITY), "-inf");
    }

    #[test]
    fn sorted_sets_hold_each_value_once_in_order() {
        assert_eq!(sorted_set([5u64, 1, 5, 3, 1, 8]), vec![1, 3, 5, 8]);
    }

    #[test]
    fn token_counts_parse_as_vllm_reads_them() {
        assert_eq!(parse_tokens("16k"), Some(16_000));
        assert_eq!(parse_tokens("16K"), Some(16_384));
        assert_eq!(parse_tokens("120K"), Some(122_880));
        assert_eq!(parse_tokens("25.6k"), Some(25_600));
        assert_eq!(parse_tokens("1m"), Some(1_000_000));
        assert_eq!(parse_tokens("1M"), Some(1_048_576));
        assert_eq!(parse_tokens("1.5K"), None);
        assert_eq!(parse_tokens("0"), Some(0));
        assert_eq!(parse_tokens("1000"), Some(1000));
        assert_eq!(parse_tokens("-3"), None);
        assert_eq!(parse_human_int("-3"), Some(-3));
        assert_eq!(parse_tokens("k"), None);
        assert_eq!(parse_tokens("99999999999999999999k"), None);
        assert_eq!(parse_tokens("99999999999999999999K"), None);
    }

    #[test]
    fn division_helpers_are_total() {
        assert_eq!(div_ceil(131_072, 4_896), 27);
        assert_eq!(div_ceil(5, 0), 0);
        assert_eq!(div_floor(5, 0), 0);
        assert_eq!(div_floor(12_960_221_184, 31_961_088), 405);
    }
}
