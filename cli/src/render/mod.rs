//! Rendering core's results, a file per subcommand; the output formats
//! here. No arithmetic beyond unit conversion for display.

use crate::args::{ExplainCell, Format};
use crate::cmd::presets::PresetsArgs;
use crate::table::Table;
use decodecalc_api::allocator::RunningLimit;
use decodecalc_api::breakdown::{grouped, grouped_f, Amount, BreakdownRow};
use decodecalc_api::harness::check_model_len;
use decodecalc_api::matrix::{Cell, Matrix, Phase, Predictor, Status};
use decodecalc_api::measured::MeasuredRow;
use decodecalc_api::measured::{Comparison, Metric, Metrics};
use decodecalc_api::presets::{self, Kind};
use decodecalc_api::scenario::{Capacity, Plan};
use decodecalc_api::timing::{prefill_row, DecodeTiming};
use decodecalc_api::units::{format_tokens, gib, mib, MIB};
use decodecalc_api::Error;
use decodecalc_fit::{prompt_relation, FitReport, NotPinned};
use serde::Serialize;

mod bench;
mod capacity;
mod compare;
mod explain;
mod fit;
mod matrix;
mod solve;

pub use bench::*;
pub use capacity::*;
pub use compare::*;
pub use explain::*;
pub use fit::*;
pub use matrix::*;
pub use solve::*;

pub(super) fn json<T: Serialize>(value: &T) -> Result<String, Error> {
    serde_json::to_string_pretty(value)
        .map(|s| s + "\n")
        .map_err(|e| Error::new(format!("cannot write JSON: {e}")))
}

pub(super) fn emit(table: &Table, format: Format) -> Result<String, Error> {
    match format {
        Format::Table => Ok(table.text()),
        Format::Markdown => Ok(table.markdown()),
        Format::Csv => table
            .csv()
            .map_err(|e| Error::new(format!("cannot write CSV: {e}"))),
        Format::Json => Err(Error::new("internal: JSON is rendered from core's values")),
    }
}

pub(super) fn opt_grouped(v: Option<f64>, digits: usize) -> String {
    v.map_or(String::new(), |x| grouped_f(x, digits))
}

/// A cell's band for one figure as a column: "±21%" (its p90).
pub(super) fn band_cell(b: Option<&decodecalc_api::scenario::Band>) -> String {
    b.map_or(String::new(), |b| format!("±{:.0}%", b.p90_abs_pct))
}
