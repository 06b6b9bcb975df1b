//! A resolved setup and the measured runs it is checked against: the one
//! path from what a user said to a predictor, which every subcommand of the
//! CLI and the page's computation take.

use decodecalc_core::matrix::Predictor;
use decodecalc_core::scenario::{Capacity, Plan, Request, World};
use decodecalc_core::Error;
use decodecalc_measured::bench::{self, BenchResult, FigureComparison};
use decodecalc_measured::compare::{compare, Comparison};
use decodecalc_measured::rows::{parse_measured, MeasuredRow};

/// What the user said, resolved: the plan (model, GPU, flags as the
/// release resolves them, the harness) and its memory.
#[derive(Clone, Debug)]
pub struct Setup {
    pub plan: Plan,
    /// The memory breakdown and the KV pool; a setup vLLM would refuse at
    /// start-up has one too (it says why), but no predictor.
    pub capacity: Capacity,
}

impl Setup {
    /// `request` resolved against the files `world` holds.
    pub fn resolve(request: &Request, world: &dyn World) -> Result<Setup, Error> {
        Setup::of_plan(request.resolve(world)?)
    }

    /// A plan with its memory.
    pub fn of_plan(plan: Plan) -> Result<Setup, Error> {
        let capacity = plan.capacity()?;
        Ok(Setup { plan, capacity })
    }

    /// The predictor of every timed answer, with the plan's calibration; an
    /// error where vLLM would not start.
    pub fn predictor(&self) -> Result<Predictor<'_>, Error> {
        Predictor::new(&self.plan, &self.capacity, self.plan.calibration.params)
    }
}

/// A measured run, as the format its file is.
#[derive(Clone, Debug)]
pub enum Run {
    /// A harness matrix: decodecalc's CSV or llm-inference-bench's
    /// `benchmark_results.json`, cell by cell.
    Matrix(Vec<MeasuredRow>),
    /// A `vllm bench serve --save-result` file: one serving run.
    Serving(Box<BenchResult>),
}

impl Run {
    /// The file `origin` holding `text`, read as the format it is.
    pub fn read(origin: &str, text: &str) -> Result<Run, Error> {
        Ok(if bench::is_save_result(text) {
            Run::Serving(Box::new(bench::parse(origin, text)?))
        } else {
            Run::Matrix(parse_measured(origin, text)?)
        })
    }

    /// The predictions of `predictor` (a [`Setup::predictor`], whose plan
    /// and capacity a serving run is simulated on) beside this run's figures.
    pub fn check(&self, predictor: &Predictor) -> Result<Checked, Error> {
        Ok(match self {
            Run::Matrix(rows) => Checked::Matrix(Box::new(compare(predictor, rows)?)),
            Run::Serving(result) => {
                let (_, _, figures) = bench::predict_run(
                    predictor.plan,
                    predictor.capacity,
                    &result.workload(),
                    Some(result),
                )?;
                Checked::Serving(figures)
            }
        })
    }
}

/// A setup's predictions beside a measured run's figures.
#[derive(Clone, Debug)]
pub enum Checked {
    /// Cell by cell, with MAPE summaries.
    Matrix(Box<Comparison>),
    /// Figure by figure of one serving run.
    Serving(Vec<FigureComparison>),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_measured_file_is_read_as_the_format_it_is() {
        let serving = r#"{"num_prompts": 10, "completed": 10, "duration": 2.0,
            "total_input_tokens": 1000, "total_output_tokens": 500,
            "request_throughput": 5.0, "output_throughput": 250.0}"#;
        assert!(matches!(Run::read("r.json", serving), Ok(Run::Serving(r)) if r.completed == 10));
        let csv = "phase,context_tokens,concurrency,status,total_tok_s,per_request_tok_s,ttft_ms,tbt_ms,avg_active_requests,output_tokens,measured_s\ndecode,0,1,valid,30.0,30.0,40,33,1.00,900,30.0\n";
        assert!(matches!(Run::read("m.csv", csv), Ok(Run::Matrix(rows)) if rows.len() == 1));
        // A harness JSON is no serving run: its error is the harness reader's.
        let e = Run::read("h.json", "{\"results\": 1}").unwrap_err();
        assert!(e.message.contains("missing array `results`"), "{e}");
    }
}
