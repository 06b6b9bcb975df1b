//! The published acceptance a prediction takes before a method's default
//! (`data/speculative/acceptance_published.csv`, made a table by
//! `core/build.rs`): the exact checkpoint's rows, else its family's.

use super::{extend_rates, Method, Speculative};

/// One published acceptance figure: a row of
/// `data/speculative/acceptance_published.csv` (its sources are there).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PublishedAcceptance {
    /// The checkpoint it was measured on ("": the family's figure).
    pub checkpoint: &'static str,
    /// The architecture prefix it stands for ("": a fine-tune's figure,
    /// its checkpoint's only).
    pub family: &'static str,
    pub method: Method,
    /// Per-position acceptance rates, as vLLM logs them, in thousandths.
    pub rates_milli: &'static [u16],
    /// The run of `data/runs/` that logged it ("": none, or the page's
    /// build, which leaves prose out).
    pub run: &'static str,
    /// The source, short, as a prediction names it ("" in the page's build).
    pub label: &'static str,
}

/// Every published acceptance figure decodecalc uses before a method's
/// default (`core/build.rs` makes the table of the CSV).
pub static PUBLISHED_ACCEPTANCE: &[PublishedAcceptance] =
    include!(concat!(env!("OUT_DIR"), "/acceptance_published.rs"));

impl Speculative {
    /// The published acceptance of the checkpoint (`names`: the model as
    /// given, its preset id, its config's `_name_or_path`, spelled as the
    /// table spells it), else of its
    /// family (a prefix of `architecture`), else the method's default kept:
    /// the mean per-position rates of the matching rows of
    /// [`PUBLISHED_ACCEPTANCE`] with this method, leaving out those run
    /// `without_run` logged (the leave-one-run-out evaluation; "": none).
    pub fn use_published_acceptance(
        &mut self,
        names: &[&str],
        architecture: &str,
        without_run: &str,
    ) {
        // Plain loops over the static table, no collections of its rows:
        // the page's module carries this.
        let matches = |r: &PublishedAcceptance, by_checkpoint: bool| {
            let scope = if by_checkpoint {
                !r.checkpoint.is_empty() && names.contains(&r.checkpoint)
            } else {
                !r.family.is_empty() && architecture.starts_with(r.family)
            };
            scope && r.method == self.method && (without_run.is_empty() || r.run != without_run)
        };
        let mut by_checkpoint = false;
        for r in PUBLISHED_ACCEPTANCE {
            by_checkpoint |= matches(r, true);
        }
        let mut source = String::from(if by_checkpoint {
            "the checkpoint's published acceptance"
        } else {
            "its family's published acceptance (a fine-tune accepts less: measure it)"
        });
        let mut mean = vec![0.0; self.acceptance.len()];
        let mut rates = Vec::new();
        let mut rows = 0u32;
        for r in PUBLISHED_ACCEPTANCE {
            if !matches(r, by_checkpoint) {
                continue;
            }
            rates.clear();
            for &v in r.rates_milli {
                rates.push(f64::from(v) / 1e3);
            }
            for (m, v) in mean
                .iter_mut()
                .zip(extend_rates(&rates, self.num_speculative_tokens))
            {
                *m += v;
            }
            if !r.label.is_empty() {
                source.push_str(if rows == 0 { ", the mean of " } else { "; " });
                source.push_str(r.label);
            }
            rows += 1;
        }
        if rows == 0 {
            return;
        }
        for m in &mut mean {
            *m /= f64::from(rows);
        }
        source.push_str(" (data/speculative/acceptance_published.csv)");
        self.acceptance = mean;
        self.acceptance_source = source;
    }
}
