//! `units::parse_f64`, the one reader of decimal numbers, against Rust's
//! own `f64::from_str` (the reference for correct rounding): the same value,
//! bit for bit, for every finite number std reads, and `None` where std
//! refuses or gives a non-finite value.

use decodecalc_core::units::parse_f64;
use proptest::prelude::*;

/// What `parse_f64` must give: std's value when it is finite.
fn std_value(text: &str) -> Option<f64> {
    text.trim().parse::<f64>().ok().filter(|v| v.is_finite())
}

fn same(text: &str) {
    let (ours, std) = (parse_f64(text), std_value(text));
    assert_eq!(
        ours.map(f64::to_bits),
        std.map(f64::to_bits),
        "`{text}`: parse_f64 {ours:?}, f64::from_str {std:?}"
    );
}

#[test]
fn edge_cases_match_std() {
    for t in [
        "0",
        "-0",
        "+0",
        "0.9",
        ".5",
        "-.5",
        "+.5",
        "5.",
        "-5.",
        "007.50",
        "1e3",
        "1E3",
        "1e+3",
        "1e-3",
        "1e0003",
        "2.5e-308",
        "4.9e-324",
        "2e-324",
        "1e-400",
        "1.7976931348623157e308",
        "1.7976931348623159e308",
        "1e309",
        "9007199254740993",
        "18446744073709551616",
        "0.1000000000000000055511151231257827021181583404541015625",
        " 12.5 ",
        "",
        ".",
        "-",
        "+",
        "e5",
        "1e",
        "1e+",
        "+-5",
        "-+5",
        "--5",
        "1.2.3",
        "1_000",
        "0x10",
        "inf",
        "-inf",
        "NaN",
        "infinity",
        "1,5",
        "١",
    ] {
        same(t);
    }
}

#[test]
fn underflow_and_overflow_read_as_std_does() {
    // Below the smallest subnormal rounds to zero; above f64::MAX is refused
    // (std says infinity, which no field of decodecalc accepts).
    assert_eq!(parse_f64("1e-400"), Some(0.0));
    assert_eq!(parse_f64("-0").map(f64::to_bits), Some((-0.0f64).to_bits()));
    assert_eq!(parse_f64("1e309"), None);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4096, ..ProptestConfig::default() })]

    /// Decimal text of every shape: sign, integer digits (leading zeros
    /// too), fraction, exponent; up to 40 significant digits, so the
    /// correctly rounded slow paths (more digits than an f64 holds, halfway
    /// cases) are reached as well as the fast one.
    #[test]
    fn decimal_text_reads_as_std_reads_it(
        sign in prop::sample::select(vec!["", "-", "+"]),
        int in "[0-9]{0,20}",
        point in any::<bool>(),
        frac in "[0-9]{0,20}",
        exp in prop::option::of((prop::sample::select(vec!["e", "E"]), prop::sample::select(vec!["", "+", "-"]), 0u32..400)),
    ) {
        let mut t = format!("{sign}{int}");
        if point {
            t.push('.');
            t.push_str(&frac);
        }
        if let Some((e, s, n)) = exp {
            t.push_str(&format!("{e}{s}{n}"));
        }
        same(&t);
    }

    /// Every f64's shortest text and its 17-digit text read back exactly.
    #[test]
    fn every_f64_reads_back(bits in any::<u64>()) {
        let v = f64::from_bits(bits);
        prop_assume!(v.is_finite());
        same(&format!("{v}"));
        same(&format!("{v:.17e}"));
        same(&format!("{v:e}"));
    }

    /// Arbitrary text never panics and agrees with std.
    #[test]
    fn any_text_agrees_with_std(t in "[-+.eE0-9a-z ]{0,24}") {
        same(&t);
    }
}
