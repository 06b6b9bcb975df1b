//! The form: a field per flag (its label, help line, select options and
//! error), the file inputs and the collapsible groups.

use super::*;

/// The options of a select field (`""` = the scenario's value): core's list
/// of the values the flag takes (`flags::choices`).
pub(super) fn options(field: &str) -> Option<Vec<String>> {
    let mut v = vec![String::new()];
    v.extend(decodecalc_api::flags::choices(field)?);
    Some(v)
}

/// What the field resolves to now, shown as its placeholder.
pub(super) fn in_use(field: &str, out: &Output) -> String {
    let p = &out.plan;
    let list = |v: &[u64]| {
        v.iter()
            .map(|&c| format_tokens(c))
            .collect::<Vec<_>>()
            .join(",")
    };
    match field {
        "model" => p.model.id.clone(),
        "gpu" => p.gpu.id.clone(),
        "vllm-version" => p.engine.vllm_version.to_string(),
        "quantization" => p
            .engine
            .weight_quant(&p.model.quant)
            .method
            .name()
            .to_string(),
        "kv-cache-dtype" => p.engine.kv_cache_dtype.name().to_string(),
        "gpu-memory-utilization" => p.engine.gpu_memory_utilization.to_string(),
        "max-model-len" => p.engine.max_model_len_tokens.to_string(),
        "max-num-seqs" => p.engine.max_num_seqs.to_string(),
        "max-num-batched-tokens" => p.engine.max_num_batched_tokens.to_string(),
        "tensor-parallel-size" => p.engine.tensor_parallel_size.to_string(),
        "enable-prefix-caching" => p.engine.enable_prefix_caching.to_string(),
        "mamba-ssm-cache-dtype" => p.engine.mamba_ssm_cache_dtype.name().to_string(),
        "contexts" => list(&p.harness.contexts_tokens),
        "concurrency" => p
            .harness
            .concurrency
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(","),
        "max-tokens" => p.harness.max_tokens.to_string(),
        "calibration" => p.calibration.id.clone(),
        "vllm-command" => "vllm serve MODEL --flag value ... (pasted launch line)".to_string(),
        "vllm-log" => "paste the start-up log vllm serve printed".to_string(),
        "plan-context" => "plan: target context, e.g. 32K".to_string(),
        "plan-concurrency" => "plan: target requests, e.g. 16".to_string(),
        "plan-min-per-request-tok-s" => "plan: min tok/s per request".to_string(),
        "block-size" => p
            .engine
            .block_size_tokens
            .map_or(String::new(), |b| b.to_string()),
        "pipeline-parallel-size" => p.engine.pipeline_parallel_size.to_string(),
        "dtype" => p.engine.dtype.name().to_string(),
        "async-scheduling" => p.engine.async_scheduling.to_string(),
        "enforce-eager" => p.engine.enforce_eager.to_string(),
        "disable-custom-all-reduce" => p.engine.disable_custom_all_reduce.to_string(),
        "prefill-contexts" => list(&p.harness.prefill_contexts_tokens),
        _ => String::new(),
    }
}

/// The help line under a field: core's one-line explanation, the unit, and
/// the default (vLLM's for a `vllm serve` flag).
pub(super) fn help_line(field: &str) -> Option<String> {
    let h = decodecalc_api::flags::describe(field)?;
    let unit = if h.unit.is_empty() {
        String::new()
    } else {
        format!(" · {}", h.unit)
    };
    let whose = if h.vllm { "vLLM default" } else { "default" };
    Some(format!("{}{unit} · {whose}: {}", h.help, h.default))
}

pub(super) fn field_view(
    field: &'static str,
    state: &State,
    dispatch: &Dispatch,
    out: &Result<Output, FieldError>,
) -> Html {
    let value = state.inputs.fields.get(field).cloned().unwrap_or_default();
    let current = out.as_ref().map(|o| in_use(field, o)).unwrap_or_default();
    let current = match (current.is_empty(), decodecalc_api::flags::describe(field)) {
        (true, Some(h)) => h.default.to_string(),
        _ => current,
    };
    let help = help_line(field);
    let help_id = format!("help-{field}");
    let error = match out {
        Err(e) if e.field == Some(field) => Some(e.error.clone()),
        _ => None,
    };
    let control = match options(field) {
        Some(opts) => {
            let d = dispatch.clone();
            let onchange = Callback::from(move |e: Event| {
                let el: HtmlSelectElement = e.target_unchecked_into();
                d.dispatch(Action::Set(field.to_string(), el.value()));
            });
            // The options as markup text: they change only with the value.
            let mut list = Markup::new();
            for o in opts {
                list.open("option")
                    .attr("value", &o)
                    .flag("selected", o == value);
                if o.is_empty() {
                    list.text(format_args!("({current})"));
                } else {
                    list.text(&o);
                }
                list.close();
            }
            html! {
                <select id={field} {onchange} aria-describedby={help_id.clone()}>
                    { list.html() }
                </select>
            }
        }
        None => {
            let d = dispatch.clone();
            let oninput = Callback::from(move |e: InputEvent| {
                let el: HtmlInputElement = e.target_unchecked_into();
                d.dispatch(Action::Set(field.to_string(), el.value()));
            });
            if field == "vllm-log" {
                html! { <textarea id={field} rows="3" value={value} placeholder={current} {oninput} aria-describedby={help_id.clone()} /> }
            } else {
                html! { <input id={field} type="text" value={value} placeholder={current} {oninput} aria-describedby={help_id.clone()} /> }
            }
        }
    };
    // The help line and error are markup text; the control beside them
    // stays a node of its own, so it keeps its focus while one types.
    let mut notes = Markup::new();
    if let Some(h) = help {
        notes
            .open("div")
            .attr("class", "help")
            .attr("id", &help_id)
            .text(h)
            .close();
    }
    if let Some(e) = &error {
        error_box(&mut notes, &format!("error-{field}"), e);
    }
    html! {
        <div class="field" data-invalid={error.is_some().then_some("true")}>
            <label for={field}>{ format!("--{field}") }</label>
            { control }
            { notes.html() }
        </div>
    }
}

/// A file input that reads the chosen file as text and dispatches it.
pub(super) fn file_input(
    id: &'static str,
    label: &'static str,
    accept: &'static str,
    loaded: Option<&String>,
    dispatch: &Dispatch,
    on_load: fn(String, String) -> Action,
    on_clear: Action,
) -> Html {
    let d = dispatch.clone();
    let onchange = Callback::from(move |e: Event| {
        let input: HtmlInputElement = e.target_unchecked_into();
        let Some(file) = input.files().and_then(|f| f.get(0)) else {
            return;
        };
        let Ok(reader) = web_sys::FileReader::new() else {
            return;
        };
        let name = file.name();
        let r = reader.clone();
        let d2 = d.clone();
        let onload = Closure::once(move |_: web_sys::ProgressEvent| {
            if let Some(text) = r.result().ok().and_then(|v| v.as_string()) {
                d2.dispatch(on_load(name, text));
            }
        });
        reader.set_onload(Some(onload.as_ref().unchecked_ref()));
        onload.forget();
        let _ = reader.read_as_text(&file);
    });
    let clear = {
        let d = dispatch.clone();
        Callback::from(move |_: MouseEvent| d.dispatch(on_clear.clone()))
    };
    html! {
        <div class="field">
            <label for={id}>{ label }</label>
            <input id={id} type="file" accept={accept} {onchange} />
            { for loaded.map(|n| html! {
                <span class="loaded">{ format!("loaded {n} ") }<button onclick={clear}>{ "clear" }</button></span>
            }) }
        </div>
    }
}

/// A titled, collapsible group of fields.
pub(super) fn group(
    id: &'static str,
    title: &'static str,
    fields: &[&'static str],
    state: &State,
    dispatch: &Dispatch,
    out: &Result<Output, FieldError>,
    extra: Html,
) -> Html {
    html! {
        <details class="group" id={format!("group-{id}")} open=true>
            <summary>{ title }</summary>
            <div class="form">
                { for fields.iter().map(|f| field_view(f, state, dispatch, out)) }
                { extra }
            </div>
        </details>
    }
}

/// The "Hugging Face repo" field: an `ORG/NAME` fetched from the Hub in
/// the browser (`crate::hub`), read by core as the CLI reads a cached repo.
/// Pressing Enter, leaving the field or the button fetches it.
pub(super) fn hub_input(state: &State, dispatch: &Dispatch) -> Html {
    let fetch = {
        let d = dispatch.clone();
        move || {
            let Some(input) = web_sys::window()
                .and_then(|w| w.document())
                .and_then(|doc| doc.get_element_by_id("hub-repo"))
                .and_then(|el| el.dyn_into::<HtmlInputElement>().ok())
            else {
                return;
            };
            let value = input.value();
            if value.trim().is_empty() {
                return;
            }
            let repo = match crate::hub::check_repo(&value) {
                Ok(r) => r,
                Err(e) => return d.dispatch(Action::HubFailed(e)),
            };
            d.dispatch(Action::HubFetching(repo.clone()));
            let d = d.clone();
            yew::platform::spawn_local(async move {
                d.dispatch(match crate::hub::fetch(&repo).await {
                    Ok(files) => Action::HubFetched(files),
                    Err(failure) => Action::HubFailed(crate::hub::error(&repo, failure)),
                });
            });
        }
    };
    let onchange = {
        let f = fetch.clone();
        Callback::from(move |_: Event| f())
    };
    let onclick = Callback::from(move |_: MouseEvent| fetch());
    let clear = {
        let d = dispatch.clone();
        Callback::from(move |_: MouseEvent| d.dispatch(Action::ClearHub))
    };
    let mut status = Markup::new();
    status
        .open("div")
        .attr("class", "help")
        .attr("id", "help-hub-repo")
        .text(format_args!(
            "ORG/NAME, fetched from {} by your browser: {}; no token is sent (for a gated repo, load its config.json)",
            crate::hub::ENDPOINT,
            decodecalc_api::scenario::HUB_FILES.join(", ")
        ))
        .close();
    match (&state.hub_fetch, &state.inputs.hub) {
        (HubFetch::Fetching(repo), _) => {
            status
                .open("span")
                .attr("class", "loaded")
                .attr("id", "hub-status")
                .text(format_args!(
                    "fetching {repo} from {} ...",
                    crate::hub::ENDPOINT
                ))
                .close();
        }
        (HubFetch::Failed(e), _) => error_box(&mut status, "error-hub-repo", e),
        (HubFetch::Idle, Some(h)) => {
            status
                .open("span")
                .attr("class", "loaded")
                .attr("id", "hub-status")
                .text(format_args!(
                    "loaded {} ({}) ",
                    h.repo,
                    h.files
                        .iter()
                        .map(|(f, _)| f.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
                .close();
        }
        (HubFetch::Idle, None) => {}
    }
    html! {
        <div class="field" data-invalid={matches!(state.hub_fetch, HubFetch::Failed(_)).then_some("true")}>
            <label for="hub-repo">{ "or a Hugging Face repo" }</label>
            <input id="hub-repo" type="text" placeholder="ORG/NAME" spellcheck="false" aria-describedby="help-hub-repo" {onchange} />
            <button id="hub-fetch" {onclick}>{ "fetch" }</button>
            { for state.inputs.hub.is_some().then(|| html! { <button id="hub-clear" onclick={clear}>{ "clear" }</button> }) }
            { status.html() }
        </div>
    }
}
