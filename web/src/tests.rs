//! The page's computations against core and the CLI's answers (native tests).

use super::*;
use proptest::prelude::*;

fn fields(pairs: &[(&str, &str)]) -> FormValues {
    let mut f = FormValues::default();
    for (k, v) in pairs {
        f.insert(k, v.to_string());
    }
    f
}

#[test]
fn errors_find_their_field() {
    let r = request(&fields(&[("max-model-len", "lots")])).unwrap_err();
    assert_eq!(field_of(&r), Some("max-model-len"));
    let e = request(&fields(&[("gpu-memory-utilization", "1.5")]))
        .unwrap()
        .resolve(&NoFiles)
        .unwrap_err();
    assert_eq!(field_of(&e), Some("gpu-memory-utilization"));
    let e = request(&fields(&[("model", "gpt-7")]))
        .unwrap()
        .resolve(&NoFiles)
        .unwrap_err();
    assert_eq!(field_of(&e), Some("model"));
    // The reducer drops a field emptied in the form: it means "the scenario's".
    let s = Rc::new(State::default()).reduce(Action::Set("concurrency".into(), "1,2".into()));
    assert_eq!(
        s.inputs.fields.get("concurrency").map(String::as_str),
        Some("1,2")
    );
    let s = s.reduce(Action::Set("concurrency".into(), " ".into()));
    let scenario_s = vec![1, 2, 4, 8, 16, 32, 64, 128];
    assert_eq!(
        compute(&s.inputs).unwrap().plan.harness.concurrency,
        scenario_s
    );
    assert_eq!(to_query(&s), "");
    assert_eq!(field_of(&Error::new("something else")), None);
}

#[test]
fn the_chart_metric_is_page_state() {
    for m in ChartMetric::ALL {
        assert_eq!(ChartMetric::from_id(m.id()), Some(m));
    }
    assert_eq!(ChartMetric::from_id("watts"), None);
    let s = Rc::new(State::default()).reduce(Action::ChartMetric(ChartMetric::TtftMs));
    assert_eq!(s.view.chart_metric, ChartMetric::TtftMs);
    // The form is unchanged: the metric is not a field and not in the URL.
    assert!(s.inputs.fields.is_empty() && to_query(&s).is_empty());
}

#[test]
fn view_actions_leave_the_inputs_and_input_actions_the_view() {
    let start = Rc::new(State::default()).reduce(Action::Set("gpu".into(), "h100-sxm".into()));
    for action in [
        Action::Focus(16_384, 32),
        Action::ChartMetric(ChartMetric::TbtMs),
        Action::Viewport(NARROW_PX - 1.0),
    ] {
        let next = start.clone().reduce(action);
        assert_eq!(
            next.inputs, start.inputs,
            "a view action changed the inputs"
        );
        assert_ne!(next.view, start.view);
    }
    let next = start
        .clone()
        .reduce(Action::Set("concurrency".into(), "4".into()));
    assert_eq!(next.view, start.view);
    assert_ne!(next.inputs, start.inputs);
    // A click shows the cell and asks the plan panel about it: both parts.
    let next = start.clone().reduce(Action::Activate(8_192, 4));
    assert_eq!(next.view.focused, Some((8_192, 4)));
    assert_eq!(
        next.inputs
            .fields
            .get("plan-concurrency")
            .map(String::as_str),
        Some("4")
    );
    // A loaded config.json replaces a fetched repo and ends its fetch.
    let fetching = start.reduce(Action::HubFetching("org/repo".into()));
    let next = fetching.reduce(Action::ModelFile("c.json".into(), "{}".into()));
    assert_eq!(next.hub_fetch, HubFetch::Idle);
    assert!(next.inputs.hub.is_none() && next.inputs.model_file.is_some());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// The page survives any input: whatever the fields hold, computing
    /// the page returns figures or an error, never a panic.
    #[test]
    fn any_form_computes_or_errs(
        values in prop::collection::vec(
            prop_oneof![
                Just(String::new()),
                "[-0-9.,ek ]{0,12}",
                "[a-z0-9_/.-]{0,20}",
                any::<f64>().prop_map(|x| x.to_string()),
                any::<i64>().prop_map(|x| x.to_string()),
            ],
            super::fields().len(),
        )
    ) {
        let mut state = State::default();
        for (f, v) in super::fields().iter().zip(values) {
            state = (*Rc::new(state).reduce(Action::Set(f.to_string(), v))).clone();
        }
        match compute(&state.inputs) {
            Ok(out) => prop_assert!(!out.matrix.cells.is_empty() || out.plan.harness.concurrency.is_empty()),
            Err(e) => prop_assert!(!e.error.message.is_empty()),
        }
    }
}

/// Snapshot: the default page is the reference scenario (45 cells; 405
/// blocks follow from its pinned non-KV figure). A regression check that
/// the page runs core's flow, not accuracy evidence.
#[test]
fn the_default_page_is_the_reference_scenario() {
    let out = compute(&Inputs::default()).unwrap();
    assert_eq!(
        out.plan.scenario_id,
        "rtx3090-nemotron-nano-12b-v2-awq4-vllm0.32"
    );
    assert_eq!(out.matrix.cells.len(), 45);
    assert_eq!(out.capacity.num_blocks, 405);
    // Its measured run is compared without a file: as `decodecalc compare`.
    let cmp = out.comparison.as_ref().unwrap().as_ref().unwrap();
    assert_eq!((cmp.summary.cells, cmp.summary.status_agreement), (45, 45));
    assert!(out.measured_name.unwrap().contains("rtx3090-nemotron"));
    let mut s = State::default();
    s.inputs.fields.insert("gpu-memory-utilization", "2".into());
    let e = compute(&s.inputs).unwrap_err();
    assert_eq!(e.field, Some("gpu-memory-utilization"));
}

/// The plan panel sizes its smallest settings as `decodecalc solve`
/// does (`solve::sizing_workload`): for distinct prompts unless the
/// workload field says otherwise, while the grid keeps the measured
/// run's harness workload. `decodecalc solve --for
/// gpu-memory-utilization --context 32K --concurrency 16` answers
/// 0.71698 (workload distinct), 0.69437 with `--workload harness`.
#[test]
fn the_plan_panel_sizes_settings_as_solve_does() {
    use decodecalc_api::harness::Workload as Prompts;
    let mut s = State::default();
    s.inputs.fields.insert("plan-context", "32K".into());
    s.inputs.fields.insert("plan-concurrency", "16".into());
    let out = compute(&s.inputs).unwrap();
    assert_eq!(out.plan.harness.workload, Prompts::Harness);
    let a = out.answers.unwrap().unwrap();
    assert_eq!(a.utilization.workload, Prompts::Distinct);
    assert!((a.utilization.value.unwrap() - 0.71698).abs() < 1e-4);
    s.inputs.fields.insert("workload", "harness".into());
    let a = compute(&s.inputs).unwrap().answers.unwrap().unwrap();
    assert_eq!(a.max_model_len.workload, Prompts::Harness);
    assert!((a.utilization.value.unwrap() - 0.69437).abs() < 1e-4);
}

/// A repo fetched by the Hub field is read by core as a cached snapshot
/// is: named by its repo id, its ModelOpt hf_quant_config.json beside
/// the config applied (NVFP4: under 0.8 bytes a parameter), a
/// safetensors index's total kept; a loaded config.json replaces it.
#[test]
fn a_fetched_hub_repo_is_read_as_a_snapshot() {
    let hub_dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../data/hub/");
    let read = |f: &str| std::fs::read_to_string(format!("{hub_dir}{f}")).unwrap();
    let files = hub::HubFiles {
        repo: "nvidia/Qwen3-32B-NVFP4".into(),
        files: vec![
            ("config.json".into(), read("nvidia--Qwen3-32B-NVFP4.json")),
            (
                "hf_quant_config.json".into(),
                read("nvidia--Qwen3-32B-NVFP4.hf_quant_config.json"),
            ),
            (
                "model.safetensors.index.json".into(),
                r#"{"metadata": {"total_size": 20123456789}}"#.into(),
            ),
        ],
    };
    let mut s = State::default();
    s.inputs.fields.insert("gpu", "h100-sxm".into());
    let s = Rc::new(s).reduce(Action::HubFetched(files));
    let out = compute(&s.inputs).unwrap();
    assert_eq!(out.plan.model.id, "nvidia/Qwen3-32B-NVFP4");
    assert_eq!(out.capacity.checkpoint_bytes, Some(20_123_456_789));
    let per_param = out.capacity.weights_bytes as f64 / out.capacity.model_params as f64;
    assert!(per_param < 0.8, "{per_param} bytes a parameter");
    let s = s.reduce(Action::ModelFile(
        "Qwen3-14B.json".into(),
        read("Qwen--Qwen3-14B.json"),
    ));
    assert!(s.inputs.hub.is_none());
    assert_eq!(
        compute(&s.inputs).unwrap().plan.model.id,
        "./Qwen3-14B.json"
    );
}
