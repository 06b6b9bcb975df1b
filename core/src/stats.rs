//! The order statistics the figures are reported in, each with the
//! definition of the tool whose figure it reproduces.
//!
//! - [`median`]: the mean of the middle two values for an even count, as
//!   Python's `statistics.median` and `np.median` compute it (the harness's
//!   p50 figures).
//! - [`percentile`] and [`weighted_percentile`]: numpy's default (`linear`)
//!   `np.percentile`, the order statistic at rank `q/100 (n - 1)` with linear
//!   interpolation between its neighbours, as `a + t (b - a)` (`vllm bench
//!   serve`'s `pNN` figures; decodecalc's own error summaries use the same
//!   definition). At `q = 50` it is the same median, but rounded as
//!   `a + (b - a) / 2` rather than `(a + b) / 2`, which can differ in the last
//!   bit: each call site keeps the form its figures were fitted with.

/// Sort (value, weight) pairs by value (stable, `f64::total_cmp`).
pub fn sort_by_value(values: &mut [(f64, f64)]) {
    values.sort_by(|a, b| a.0.total_cmp(&b.0));
}

/// `values` as (value, weight 1) pairs sorted by value.
fn sorted_unweighted(values: &[f64]) -> Vec<(f64, f64)> {
    let mut weighted: Vec<(f64, f64)> = values.iter().map(|&v| (v, 1.0)).collect();
    sort_by_value(&mut weighted);
    weighted
}

/// Median with linear interpolation between the middle two (the harness's
/// p50): `(a + b) / 2` for an even count; 0 for no values.
pub fn median(values: &[f64]) -> f64 {
    let sorted = sorted_unweighted(values);
    let n = sorted.len();
    let at = |i: usize| sorted.get(i).map_or(0.0, |v| v.0);
    match n {
        0 => 0.0,
        _ if n % 2 == 1 => at(n / 2),
        _ => (at(n / 2 - 1) + at(n / 2)) / 2.0,
    }
}

/// numpy's linear percentile `q` (0 to 100) of `values`; 0 for no values.
pub fn percentile(values: &[f64], q: f64) -> f64 {
    weighted_percentile(&sorted_unweighted(values), values.len() as f64, q)
}

/// numpy's linear percentile `q` over weighted values sorted by value,
/// (value, how many times it occurs), whose weights sum to `n`: the order
/// statistic at rank `q/100 (n - 1)`, interpolated linearly to the next one
/// (exactly the order statistic when the rank is whole).
pub fn weighted_percentile(sorted: &[(f64, f64)], n: f64, q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = q / 100.0 * (n - 1.0);
    let at = |r: f64| {
        let mut seen = 0.0;
        for &(v, w) in sorted {
            seen += w;
            if r < seen {
                return v;
            }
        }
        sorted.last().map_or(0.0, |v| v.0)
    };
    let lo = rank.floor();
    let frac = rank - lo;
    let a = at(lo);
    if frac == 0.0 {
        a
    } else {
        a + frac * (at(lo + 1.0) - a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_interpolates_like_the_harness() {
        assert_eq!(median(&[]), 0.0);
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
    }

    #[test]
    fn percentiles_interpolate_like_numpy() {
        // numpy.percentile([1, 2, 3, 4], 50) = 2.5; 99 -> 3.97; 90 -> 3.7.
        assert_eq!(percentile(&[4.0, 1.0, 3.0, 2.0], 50.0), 2.5);
        assert!((percentile(&[4.0, 1.0, 3.0, 2.0], 99.0) - 3.97).abs() < 1e-12);
        assert!((percentile(&[4.0, 1.0, 3.0, 2.0], 90.0) - 3.7).abs() < 1e-12);
        assert_eq!(percentile(&[], 50.0), 0.0);
        // Weights count as repeated values: [1, 1, 1, 5] -> p50 1, p90 3.8.
        let w = [(1.0, 3.0), (5.0, 1.0)];
        assert_eq!(weighted_percentile(&w, 4.0, 50.0), 1.0);
        assert!((weighted_percentile(&w, 4.0, 90.0) - 3.8).abs() < 1e-12);
    }
}
