//! decodecalc in the browser. Components, a reducer for the form's state, and
//! no model arithmetic: every figure comes from `decodecalc-core` through the
//! same `Request -> Plan -> Capacity -> Predictor` path the CLI takes. The
//! page turns core's values into markup (widths, colours, text) and nothing
//! more.

pub mod hub;
mod view;

use decodecalc_api::flags::{FlagGroup, REQUEST_FLAGS};
use decodecalc_api::harness::check_model_len;
use decodecalc_api::matrix::{Matrix, Predictor};
use decodecalc_api::measured::bench::is_save_result;
use decodecalc_api::measured::{Checked, Comparison, FigureComparison, Figures, Run};
use decodecalc_api::presets::{self, Kind};
use decodecalc_api::rank::{Question, Ranked, Workload, RANKED_TP_SIZES};
use decodecalc_api::scenario::{Capacity, NoFiles, Plan, ReadError, Request, World};
use decodecalc_api::solve::{
    sizing_workload, smallest_max_model_len, smallest_utilization, MaxConcurrency, MaxContext,
    SmallestSetting, SpeedTarget,
};
use decodecalc_api::Error;
use decodecalc_api::Setup;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use yew::prelude::*;

/// The page's allocator (web/Cargo.toml says why).
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOCATOR: rlsf::SmallGlobalTlsf = rlsf::SmallGlobalTlsf::new();

/// The fields of the first screen: what a user comes with.
pub const ESSENTIALS: [&str; 4] = ["model", "gpu", "contexts", "concurrency"];
/// The plan panel's question: a target cell and a speed.
pub const PLAN: [&str; 3] = [
    "plan-context",
    "plan-concurrency",
    "plan-min-per-request-tok-s",
];

/// Every engine flag of core's table, as the form's fields.
pub fn engine_fields() -> Vec<&'static str> {
    decodecalc_api::flags::ENGINE_FLAGS
        .iter()
        .map(|f| f.flag)
        .collect()
}

/// A group's fields besides the essentials, in core's table order (its
/// `group` column); the page has no scenario field (its one scenario is the
/// reference, and `#scenario` is the verdict line).
pub fn group_fields(group: FlagGroup) -> Vec<&'static str> {
    REQUEST_FLAGS
        .iter()
        .filter(|r| r.group == group && r.flag != "scenario" && !ESSENTIALS.contains(&r.flag))
        .map(|r| r.flag)
        .collect()
}

/// The form's fields, by element id (the flag without its dashes), in the
/// order the page shows them: the essentials, the setup, the workload, every
/// engine flag of core's table, the plan panel's question.
pub fn fields() -> Vec<&'static str> {
    let mut v: Vec<&'static str> = ESSENTIALS.to_vec();
    v.extend(group_fields(FlagGroup::Setup));
    v.extend(group_fields(FlagGroup::Workload));
    v.extend(engine_fields());
    v.extend(PLAN);
    v
}

/// Whether a form value is given: a blank one means "the scenario's".
fn is_set(text: &&String) -> bool {
    !text.trim().is_empty()
}

/// The form's values: one text per field of [`fields()`], in that order,
/// blank where the user gave none (the scenario's value then). The fields
/// are a fixed list, so the values are a row beside it, not a map.
#[derive(Clone, Debug, PartialEq)]
pub struct FormValues(Vec<(&'static str, String)>);

impl Default for FormValues {
    fn default() -> FormValues {
        FormValues(fields().into_iter().map(|f| (f, String::new())).collect())
    }
}

impl FormValues {
    /// The text of field `id` (blank if not given; None if no such field).
    pub fn get(&self, id: &str) -> Option<&String> {
        self.0.iter().find(|(f, _)| *f == id).map(|(_, v)| v)
    }

    /// Set field `id`'s text; an id that is no field of the form is ignored.
    pub fn insert(&mut self, id: &str, text: String) {
        if let Some((_, v)) = self.0.iter_mut().find(|(f, _)| *f == id) {
            *v = text;
        }
    }

    /// The fields given, in the form's order.
    pub fn given(&self) -> impl Iterator<Item = (&'static str, &String)> {
        self.0
            .iter()
            .map(|(f, v)| (*f, v))
            .filter(|(_, v)| is_set(v))
    }

    /// Whether no field is given.
    pub fn is_empty(&self) -> bool {
        self.given().next().is_none()
    }
}

/// The page's whole state, in two parts the reducer keeps apart: what the
/// page computes from ([`Inputs`]) and how the results are shown
/// ([`ViewState`]), with the Hub field's fetch beside them. Only a change of
/// `inputs` recomputes ([`compute`] is memoized on it).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct State {
    pub inputs: Inputs,
    pub view: ViewState,
    /// The "Hugging Face repo" field's fetch: under way, or failed with core's error.
    pub hub_fetch: HubFetch,
}

/// What the page computes from: the form, the loaded files and whether the
/// ranking was asked for.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Inputs {
    pub fields: FormValues,
    /// A measured run loaded for comparison (name, text).
    pub measured: Option<(String, String)>,
    /// A model's config.json loaded from disk (name, text).
    pub model_file: Option<(String, String)>,
    /// A Hub repo's files fetched by the "Hugging Face repo" field.
    pub hub: Option<hub::HubFiles>,
    /// The plan panel's GPU ranking was asked for (a sweep of hundreds of
    /// configurations: it runs only on request).
    pub rank_requested: bool,
}

/// How the results are shown: hovering, switching the metric or resizing
/// changes only this, and recomputes nothing.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ViewState {
    /// The decode cell whose details are shown (context, concurrency).
    pub focused: Option<(u64, u64)>,
    /// The figure the chart draws.
    pub chart_metric: ChartMetric,
    /// The window is narrower than [`NARROW_PX`] (a phone): the chart is
    /// drawn in a narrow frame, its legend below the plot.
    pub narrow: bool,
}

/// The state of the Hub field's last fetch.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum HubFetch {
    #[default]
    Idle,
    /// Asking the Hub for this repo.
    Fetching(String),
    Failed(Error),
}

/// How many times [`compute`] has run in this page: the end-to-end test
/// reads it (`data-computes` on the page) to check that a hover recomputes
/// nothing.
static COMPUTES: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// The number of computations so far.
pub fn computes() -> u32 {
    COMPUTES.load(std::sync::atomic::Ordering::Relaxed)
}

/// Below this window width (CSS px) the chart takes its narrow frame, so
/// that its text is drawn at 10 px or more rather than scaled to 6.
pub const NARROW_PX: f64 = 640.0;

/// Whether a window this wide (CSS px) gets the narrow chart.
fn is_narrow(width: f64) -> bool {
    width < NARROW_PX
}

/// The window's width in CSS px, if there is a window.
fn window_width() -> Option<f64> {
    web_sys::window()?.inner_width().ok()?.as_f64()
}

/// The figures the chart can draw: a decode cell's, as core predicts or a
/// measured run has them ([`decodecalc_api::measured::Figures`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ChartMetric {
    #[default]
    TotalTokS,
    PerRequestTokS,
    TbtMs,
    TtftMs,
}

impl ChartMetric {
    pub const ALL: [ChartMetric; 4] = [
        ChartMetric::TotalTokS,
        ChartMetric::PerRequestTokS,
        ChartMetric::TbtMs,
        ChartMetric::TtftMs,
    ];

    /// The name of the figure in core's JSON (and the switch's value).
    pub fn id(self) -> &'static str {
        match self {
            ChartMetric::TotalTokS => "total_tok_s",
            ChartMetric::PerRequestTokS => "per_request_tok_s",
            ChartMetric::TbtMs => "tbt_ms",
            ChartMetric::TtftMs => "ttft_ms",
        }
    }

    /// What a reader calls it, with its unit.
    pub fn label(self) -> &'static str {
        match self {
            ChartMetric::TotalTokS => "total tok/s",
            ChartMetric::PerRequestTokS => "per-request tok/s",
            ChartMetric::TbtMs => "time between tokens (ms)",
            ChartMetric::TtftMs => "TTFT as the harness measures it (ms; cached prompt)",
        }
    }

    pub fn from_id(id: &str) -> Option<ChartMetric> {
        ChartMetric::ALL.into_iter().find(|m| m.id() == id)
    }

    /// The figure of a predicted or measured cell.
    pub fn of(self, f: &Figures) -> Option<f64> {
        match self {
            ChartMetric::TotalTokS => f.total_tok_s,
            ChartMetric::PerRequestTokS => f.per_request_tok_s,
            ChartMetric::TbtMs => f.tbt_ms,
            ChartMetric::TtftMs => f.ttft_ms,
        }
    }

    /// The figure of a matrix cell.
    pub fn of_cell(self, c: &decodecalc_api::matrix::Cell) -> Option<f64> {
        match self {
            ChartMetric::TotalTokS => c.total_tok_s,
            ChartMetric::PerRequestTokS => c.per_request_tok_s,
            ChartMetric::TbtMs => c.tbt_ms,
            ChartMetric::TtftMs => c.harness_ttft_ms(),
        }
    }
}

#[derive(Clone, Debug)]
pub enum Action {
    Set(String, String),
    Measured(String, String),
    ClearMeasured,
    ModelFile(String, String),
    ClearModelFile,
    /// The Hub field's fetch started, finished, or failed.
    HubFetching(String),
    HubFetched(hub::HubFiles),
    HubFailed(Error),
    ClearHub,
    Focus(u64, u64),
    /// A cell clicked (or Enter / Space): its details, and the plan panel's
    /// question set to it, so the solvers answer what would make it fit or
    /// fast.
    Activate(u64, u64),
    ChartMetric(ChartMetric),
    /// The window was resized to this width (CSS px).
    Viewport(f64),
    /// The plan panel's "rank GPUs" button.
    Rank,
}

impl Reducible for State {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        // A resize within the same frame, or the pointer moving within the
        // cell already shown, changes nothing: no recompute.
        match action {
            Action::Viewport(width) if is_narrow(width) == self.view.narrow => return self,
            Action::Focus(c, n) if self.view.focused == Some((c, n)) => return self,
            _ => {}
        }
        let mut next = (*self).clone();
        match action {
            Action::Focus(..) | Action::ChartMetric(_) | Action::Viewport(_) => {
                next.view.reduce(&action);
            }
            // A cell clicked is both: its details shown, and the plan
            // panel's question set to it.
            Action::Activate(c, n) => {
                next.view.focused = Some((c, n));
                next.inputs.fields.insert("plan-context", c.to_string());
                next.inputs.fields.insert("plan-concurrency", n.to_string());
            }
            Action::HubFetching(repo) => next.hub_fetch = HubFetch::Fetching(repo),
            // A failed fetch leaves no earlier repo driving the grid.
            Action::HubFailed(e) => {
                next.inputs.hub = None;
                next.hub_fetch = HubFetch::Failed(e);
            }
            Action::ModelFile(..) | Action::HubFetched(_) | Action::ClearHub => {
                next.inputs.reduce(action);
                next.hub_fetch = HubFetch::Idle;
            }
            _ => next.inputs.reduce(action),
        }
        Rc::new(next)
    }
}

impl Inputs {
    /// What an action changes in what the page computes from.
    fn reduce(&mut self, action: Action) {
        match action {
            // A field emptied in the form keeps its (blank) text: blank
            // means "the scenario's" wherever a field is read (`is_set`).
            Action::Set(k, v) => self.fields.insert(&k, v),
            Action::Measured(name, text) => self.measured = Some((name, text)),
            Action::ClearMeasured => self.measured = None,
            // The model comes from one place: a loaded file replaces a
            // fetched repo, and the other way round.
            Action::ModelFile(name, text) => {
                self.model_file = Some((name, text));
                self.hub = None;
            }
            Action::ClearModelFile => self.model_file = None,
            Action::HubFetched(files) => {
                self.hub = Some(files);
                self.model_file = None;
            }
            Action::ClearHub => self.hub = None,
            Action::Rank => self.rank_requested = true,
            _ => {}
        }
    }
}

impl ViewState {
    /// What an action changes in how the results are shown.
    fn reduce(&mut self, action: &Action) {
        match *action {
            Action::Focus(c, n) => self.focused = Some((c, n)),
            Action::ChartMetric(m) => self.chart_metric = m,
            Action::Viewport(width) => self.narrow = is_narrow(width),
            _ => {}
        }
    }
}

/// An error, with the form field it belongs to when it names one.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldError {
    pub field: Option<&'static str>,
    pub error: Error,
}

impl FieldError {
    fn new(error: Error) -> FieldError {
        FieldError {
            field: field_of(&error),
            error,
        }
    }
}

/// The form field an error is about: the flag core's error names (its
/// `field`), when the form has that field.
pub fn field_of(e: &Error) -> Option<&'static str> {
    let flag = e.flag()?.trim_start_matches('-');
    fields().into_iter().find(|f| *f == flag)
}

/// What the page shows, all computed by core.
#[derive(Clone, Debug, PartialEq)]
pub struct Output {
    pub plan: Plan,
    pub capacity: Capacity,
    pub matrix: Matrix,
    /// The measured run compared: the file the user loaded, else the
    /// scenario's own (`plan.measured`), as `decodecalc compare` does.
    pub comparison: Option<Result<Comparison, Error>>,
    /// Where that measured run comes from (a file name or preset path).
    pub measured_name: Option<String>,
    /// A dropped `vllm bench serve --save-result` JSON: its workload run on
    /// this setup and each of its figures beside the prediction, as
    /// `decodecalc compare --measured FILE.json` gives them.
    pub bench: Option<Result<Vec<FigureComparison>, Error>>,
    /// The plan panel's answers, when its question is filled in.
    pub answers: Option<Result<Answers, Error>>,
}

/// Solver and ranking answers for the plan panel's target cell.
#[derive(Clone, Debug, PartialEq)]
pub struct Answers {
    pub context_tokens: u64,
    pub concurrency: u64,
    pub max_context: MaxContext,
    pub max_concurrency: MaxConcurrency,
    pub utilization: SmallestSetting,
    pub max_model_len: SmallestSetting,
    /// The cheapest configurations, once asked for ([`Action::Rank`]).
    pub ranking: Option<Vec<Ranked>>,
}

/// The plan panel: every answer from core's solvers and ranking.
fn answers(state: &Inputs, plan: &Plan, predictor: &Predictor) -> Option<Result<Answers, Error>> {
    let ctx_text = state.fields.get("plan-context").filter(is_set)?;
    let c_text = state.fields.get("plan-concurrency").filter(is_set)?;
    Some((|| {
        let ctx = decodecalc_api::units::parse_tokens(ctx_text).ok_or_else(|| {
            Error::field(
                "--plan-context",
                ctx_text,
                "a token count such as 32768, 32K (x1024) or 32k (x1000)",
            )
        })?;
        let c: u64 = c_text
            .trim()
            .parse()
            .ok()
            .filter(|&c| c > 0)
            .ok_or_else(|| {
                Error::field("--plan-concurrency", c_text, "a positive request count")
            })?;
        let speed = SpeedTarget {
            min_per_request_tok_s: number(&state.fields, "plan-min-per-request-tok-s")?,
        };
        check_model_len(
            "--plan-context",
            ctx,
            plan.harness.max_tokens,
            plan.engine.max_model_len_tokens,
        )?;
        let request = request(&state.fields)?;
        // The same question `decodecalc rank` answers for these flags.
        let workload = Workload {
            context_tokens: ctx,
            concurrency: c,
            min_per_request_tok_s: speed.min_per_request_tok_s,
        };
        let ranking = if state.rank_requested {
            let mut ranked = Question {
                model: &plan.model,
                gpus: None,
                tps: &RANKED_TP_SIZES,
                engine: &request.engine,
                harness: &request.harness,
                workload,
                price_overrides: &[],
            }
            .answer(&NoFiles)?
            .ranked;
            ranked.truncate(8);
            Some(ranked)
        } else {
            None
        };
        // The smallest settings are sized for core's sizing workload, as
        // `decodecalc solve` sizes them.
        let mut sizing = plan.clone();
        sizing.harness.workload = sizing_workload(request.harness.workload);
        Ok(Answers {
            context_tokens: ctx,
            concurrency: c,
            max_context: predictor.max_context(c, speed),
            max_concurrency: predictor.max_concurrency(ctx, speed),
            utilization: smallest_utilization(&sizing, ctx, c, speed)?,
            max_model_len: smallest_max_model_len(&sizing, ctx, c, speed)?,
            ranking,
        })
    })())
}

fn number<T: decodecalc_api::units::FromText>(
    fields: &FormValues,
    id: &str,
) -> Result<Option<T>, Error> {
    match fields.get(id).filter(is_set) {
        None => Ok(None),
        Some(t) => T::from_text(t)
            .map(Some)
            .ok_or_else(|| Error::field(decodecalc_api::Subject::flag(id), t, "a number")),
    }
}

/// The request the form describes: every field is named as its flag and set
/// through core's one request builder (`Request::set`), as the CLI's flags are.
pub fn request(fields: &FormValues) -> Result<Request, Error> {
    let mut request = Request::default();
    for (id, text) in fields.given().filter(|(id, _)| !id.starts_with("plan-")) {
        request.set(id, text)?;
    }
    if let Some((_, text)) = request.vllm_log.take() {
        request.vllm_log = Some(("the pasted log".to_string(), text));
    }
    Ok(request)
}

/// The page's files: a model's config.json the user loaded, and a Hub
/// repo's fetched files, if any.
struct Uploaded<'a> {
    model_file: Option<&'a (String, String)>,
    hub: Option<&'a hub::HubFiles>,
}

impl World for Uploaded<'_> {
    fn read(&self, path: &str) -> Result<String, ReadError> {
        if let Some(text) = self.hub.and_then(|h| h.file(path)) {
            return Ok(text.to_string());
        }
        match self.model_file {
            Some((name, text)) if uploaded_name(name) == path => Ok(text.clone()),
            _ => NoFiles.read(path),
        }
    }

    fn entry(&self, path: &str) -> decodecalc_api::scenario::Entry {
        use decodecalc_api::scenario::Entry;
        match self.hub {
            Some(h) if h.snapshot() == path => Entry::Directory,
            Some(h) if h.file(path).is_some() => Entry::File,
            _ => Entry::Missing,
        }
    }

    /// The fetched repo's files, read as a cached snapshot is.
    fn hub_snapshot(
        &self,
        repo: &str,
    ) -> Result<Option<String>, decodecalc_api::scenario::HubError> {
        Ok(self
            .hub
            .filter(|h| h.repo == repo)
            .map(hub::HubFiles::snapshot))
    }
}

/// The name a loaded config.json goes by (it must read as a .json path).
fn uploaded_name(name: &str) -> String {
    if name.ends_with(".json") {
        format!("./{name}")
    } else {
        format!("./{name}.json")
    }
}

/// Everything the page shows for a state; every number from core.
pub fn compute(state: &Inputs) -> Result<Output, FieldError> {
    COMPUTES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let mut req = request(&state.fields).map_err(FieldError::new)?;
    if req.model.is_none() {
        if let Some((name, _)) = &state.model_file {
            req.model = Some(uploaded_name(name));
        } else if let Some(h) = &state.hub {
            req.model = Some(h.repo.clone());
        }
    }
    let world = Uploaded {
        model_file: state.model_file.as_ref(),
        hub: state.hub.as_ref(),
    };
    let setup = Setup::resolve(&req, &world).map_err(FieldError::new)?;
    let predictor = setup.predictor().map_err(FieldError::new)?;
    let matrix = predictor.matrix();
    let measured: Option<Result<(&str, &str), Error>> =
        match (&state.measured, &setup.plan.measured) {
            (Some((name, text)), _) => Some(Ok((name, text))),
            (None, Some(id)) => Some(presets::find(Kind::Measured, id).map(|f| (f.path, f.text))),
            (None, None) => None,
        };
    let measured_name = measured
        .as_ref()
        .and_then(|m| m.as_ref().ok())
        .map(|(name, _)| name.to_string());
    // A benchmark's save-result file is not a matrix: its own workload is
    // predicted and compared figure by figure, in its own panel.
    let (comparison, bench) = match measured {
        None => (None, None),
        Some(m) => {
            let serving = m.as_ref().is_ok_and(|(_, text)| is_save_result(text));
            match m.and_then(|(name, text)| Run::read(name, text)?.check(&predictor)) {
                Ok(Checked::Matrix(c)) => (Some(Ok(*c)), None),
                Ok(Checked::Serving(figures)) => (None, Some(Ok(figures))),
                Err(e) if serving => (None, Some(Err(e))),
                Err(e) => (Some(Err(e)), None),
            }
        }
    };
    let answers = answers(state, &setup.plan, &predictor);
    let Setup { plan, capacity } = setup;
    Ok(Output {
        plan,
        capacity,
        matrix,
        comparison,
        measured_name,
        bench,
        answers,
    })
}

/// The query string for a state: non-empty fields only, in the order of `fields()` (a
/// pasted start-up log stays out: it is too long for a link).
pub fn to_query(state: &State) -> String {
    let parts: Vec<String> = state
        .inputs
        .fields
        .given()
        .filter(|(f, _)| *f != "vllm-log")
        .map(|(f, v)| format!("{f}={}", js_sys::encode_uri_component(v)))
        .collect();
    if parts.is_empty() {
        String::new()
    } else {
        format!("?{}", parts.join("&"))
    }
}

/// A state from a query string (unknown keys are ignored).
pub fn from_query(search: &str) -> State {
    let mut state = State::default();
    for pair in search.trim_start_matches('?').split('&') {
        let Some((k, v)) = pair.split_once('=') else {
            continue;
        };
        if fields().contains(&k) && !v.is_empty() {
            let v = js_sys::decode_uri_component(v)
                .ok()
                .and_then(|s| s.as_string())
                .unwrap_or_else(|| v.to_string());
            state.inputs.fields.insert(k, v);
        }
    }
    state
}

#[function_component(App)]
fn app() -> Html {
    let mut initial = web_sys::window()
        .and_then(|w| w.location().search().ok())
        .map(|s| from_query(&s))
        .unwrap_or_default();
    initial.view.narrow = window_width().is_some_and(is_narrow);
    let state = use_reducer(move || initial);
    // The chart's frame follows the window's width.
    {
        let dispatch = state.dispatcher();
        use_effect_with((), move |_| {
            let on_resize = Closure::<dyn Fn()>::new(move || {
                if let Some(w) = window_width() {
                    dispatch.dispatch(Action::Viewport(w));
                }
            });
            let window = web_sys::window();
            if let Some(w) = &window {
                let _ = w
                    .add_event_listener_with_callback("resize", on_resize.as_ref().unchecked_ref());
            }
            move || {
                if let Some(w) = &window {
                    let _ = w.remove_event_listener_with_callback(
                        "resize",
                        on_resize.as_ref().unchecked_ref(),
                    );
                }
            }
        });
    }
    // The URL holds the whole form: a link reproduces the page.
    {
        let query = to_query(&state);
        use_effect_with(query, |query| {
            if let Some(w) = web_sys::window() {
                let path = w.location().pathname().unwrap_or_default();
                if let Ok(h) = w.history() {
                    let _ = h.replace_state_with_url(
                        &JsValue::NULL,
                        "",
                        Some(&format!("{path}{query}")),
                    );
                }
            }
        });
    }
    // Computed again only when the inputs change.
    let output = use_memo(state.inputs.clone(), compute);
    view::page(&state, state.dispatcher(), &output)
}

/// Benchmark hook (web/tests/bench.mjs): computes the reference page
/// `iterations` times and returns the milliseconds one computation takes,
/// measured with the browser's clock. Nothing on the page calls it.
#[wasm_bindgen]
pub fn bench_recompute(iterations: u32) -> f64 {
    let state = Inputs::default();
    let start = js_sys::Date::now();
    for _ in 0..iterations.max(1) {
        let _ = std::hint::black_box(compute(std::hint::black_box(&state)));
    }
    (js_sys::Date::now() - start) / f64::from(iterations.max(1))
}

/// Entry point: a panic shows a message on the page instead of a blank page.
#[wasm_bindgen(start)]
pub fn start() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        if let Some(doc) = web_sys::window().and_then(|w| w.document()) {
            if let Some(el) = doc.get_element_by_id("fatal") {
                el.set_text_content(Some(&format!(
                    "decodecalc stopped on an internal error; reload the page. ({info})"
                )));
                let _ = el.set_attribute("style", "display:block");
            }
        }
    }));
    if let Some(root) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id("app"))
    {
        yew::Renderer::<App>::with_root(root).render();
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests;
