//! A measured matrix against the prediction with leave-one-cell-out refits
//! (`decodecalc compare --cross-validate`): core's comparison, and each
//! cell predicted by a fit that did not see it.

use crate::error::Result;
use crate::{fit, leave_one_out};
use decodecalc_core::matrix::Predictor;
use decodecalc_measured::compare::{check_rows, comparison, Comparison};
use decodecalc_measured::rows::MeasuredRow;

/// [`decodecalc_measured::compare::compare`], and refit leaving each cell out
/// and compare those predictions too.
pub fn compare_cross_validated(predictor: &Predictor, rows: &[MeasuredRow]) -> Result<Comparison> {
    check_rows(predictor, rows)?;
    let full = fit(predictor, rows)?;
    let loo = leave_one_out(predictor, rows, &full.params);
    Ok(comparison(predictor, rows, Some(&loo)))
}
