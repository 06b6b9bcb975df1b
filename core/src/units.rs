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

/// Parse a token count as the harness writes it: `16k`/`16K` = 16 x 1024,
/// plain digits otherwise (`120K` = 122,880).
pub fn parse_tokens(text: &str) -> Option<u64> {
    let t = text.trim();
    if let Some(num) = t.strip_suffix(['k', 'K']) {
        num.trim().parse::<u64>().ok()?.checked_mul(1024)
    } else {
        t.parse::<u64>().ok()
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
    fn tokens_parse_k_suffix_as_1024() {
        assert_eq!(parse_tokens("16k"), Some(16_384));
        assert_eq!(parse_tokens("120K"), Some(122_880));
        assert_eq!(parse_tokens("0"), Some(0));
        assert_eq!(parse_tokens("1000"), Some(1000));
        assert_eq!(parse_tokens("-3"), None);
        assert_eq!(parse_tokens("k"), None);
        assert_eq!(parse_tokens("99999999999999999999k"), None);
        assert_eq!(format_tokens(122_880), "120K");
        assert_eq!(format_tokens(0), "0");
    }

    #[test]
    fn division_helpers_are_total() {
        assert_eq!(div_ceil(131_072, 4_896), 27);
        assert_eq!(div_ceil(5, 0), 0);
        assert_eq!(div_floor(5, 0), 0);
        assert_eq!(div_floor(12_960_221_184, 31_961_088), 405);
    }
}
