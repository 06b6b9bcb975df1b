//! The chart: a metric against concurrency, one line per context, the
//! measured run's points on top, as SVG text.

use super::*;

pub(super) const COLORS: [&str; 8] = [
    "#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d", "#666666",
];

/// Round tick values from 0 to at least `max`: about five steps of 1, 2 or 5
/// times a power of ten.
pub(super) fn nice_ticks(max: f64) -> (Vec<f64>, f64) {
    let max = if max.is_finite() && max > 0.0 {
        max
    } else {
        1.0
    };
    let raw = max / 5.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw * (1.0 - 1e-9))
        .unwrap_or(10.0 * mag);
    let mut ticks = Vec::new();
    for i in 0..=12u32 {
        let t = f64::from(i) * step;
        ticks.push(t);
        if t >= max * (1.0 - 1e-9) {
            break;
        }
    }
    (ticks, step)
}

/// A tick label with as many decimals as the step needs.
pub(super) fn tick_label(t: f64, step: f64) -> String {
    let digits = if step >= 1.0 {
        0
    } else if step >= 0.1 {
        1
    } else if step >= 0.01 {
        2
    } else {
        3
    };
    format!("{t:.digits$}")
}

/// The powers of two from the smallest to the largest concurrency (the ends
/// themselves when no power of two lies between them).
pub(super) fn log2_ticks(lo: u64, hi: u64) -> Vec<u64> {
    let mut ticks: Vec<u64> = (0..64u32)
        .filter_map(|k| 1u64.checked_shl(k))
        .filter(|&p| p >= lo && p <= hi)
        .collect();
    if ticks.is_empty() {
        ticks = if lo == hi { vec![lo] } else { vec![lo, hi] };
    }
    ticks
}

/// The chart's frame in pixels: plot area, the scales of both axes and
/// where the legend goes (right of the plot, or below it on a narrow
/// screen, where the frame is narrower so its text stays legible).
pub(super) struct Frame {
    narrow: bool,
    w: f64,
    h: f64,
    left: f64,
    right: f64,
    top: f64,
    bottom: f64,
    x0: f64,
    xspan: f64,
    ymax: f64,
}

impl Frame {
    /// `legend_rows`: the legend's entries (one per context, then the
    /// predicted and measured keys).
    fn new(concurrency: &[u64], ymax: f64, narrow: bool, legend_rows: usize) -> Frame {
        let lo = concurrency.iter().copied().min().unwrap_or(1).max(1);
        let hi = concurrency.iter().copied().max().unwrap_or(1).max(lo);
        let (x0, x1) = ((lo as f64).log2(), (hi as f64).log2());
        let (w, h, left, right, top, bottom) = if narrow {
            let legend_h = 20.0 * legend_rows.div_ceil(2) as f64;
            (400.0, 306.0 + legend_h, 58.0, 384.0, 36.0, 236.0)
        } else {
            (760.0, 330.0, 66.0, 600.0, 40.0, 276.0)
        };
        Frame {
            narrow,
            w,
            h,
            left,
            right,
            top,
            bottom,
            x0,
            xspan: if x1 > x0 { x1 - x0 } else { 1.0 },
            ymax: ymax.max(1e-9),
        }
    }

    /// Where legend entry `i` starts: its line's left end, at its text's
    /// middle height. Right of the plot in one column, or below the x axis
    /// title in two.
    fn legend_at(&self, i: usize) -> (f64, f64) {
        if self.narrow {
            let col = (i % 2) as f64;
            let row = (i / 2) as f64;
            (
                self.left + 170.0 * col - 30.0,
                self.bottom + 66.0 + 20.0 * row,
            )
        } else {
            (self.right + 24.0, self.top + 6.0 + 18.0 * i as f64)
        }
    }

    /// The x axis title's baseline.
    fn x_title_y(&self) -> f64 {
        if self.narrow {
            self.bottom + 40.0
        } else {
            self.h - 12.0
        }
    }

    fn x(&self, c: u64) -> f64 {
        let f = ((c.max(1) as f64).log2() - self.x0) / self.xspan;
        self.left + (self.right - self.left) * f.clamp(0.0, 1.0)
    }

    fn y(&self, v: f64) -> f64 {
        self.bottom - (self.bottom - self.top) * (v / self.ymax)
    }
}

/// The measured run's decode points for the chart's metric:
/// (context, concurrency, value).
pub(super) fn measured_points(o: &Output, metric: ChartMetric) -> Vec<(u64, u64, f64)> {
    match &o.comparison {
        Some(Ok(c)) => c
            .cells
            .iter()
            .filter(|x| x.phase == Phase::Decode)
            .filter_map(|x| {
                metric
                    .of(&x.measured)
                    .map(|v| (x.context_tokens, x.concurrency, v))
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// Axes, grid lines, ticks with their labels and both axis titles.
pub(super) fn chart_axes(
    svg: &mut Markup,
    f: &Frame,
    yticks: &[f64],
    step: f64,
    xticks: &[u64],
    metric: ChartMetric,
) {
    svg.open("g").attr("class", "axes");
    for &t in yticks {
        let y = px(f.y(t));
        svg.open("g")
            .attr("class", "ytick")
            .attr("data-value", json_number(t))
            .open("line")
            .attr("x1", px(f.left))
            .attr("x2", px(f.right))
            .attr("y1", &y)
            .attr("y2", &y)
            .attr("class", "grid-line")
            .close()
            .open("text")
            .attr("x", px(f.left - 6.0))
            .attr("y", px(f.y(t) + 4.0))
            .attr("text-anchor", "end")
            .attr("class", "axis")
            .text(tick_label(t, step))
            .close()
            .close();
    }
    for &c in xticks {
        let x = px(f.x(c));
        svg.open("g")
            .attr("class", "xtick")
            .attr("data-value", c)
            .open("line")
            .attr("x1", &x)
            .attr("x2", &x)
            .attr("y1", px(f.bottom))
            .attr("y2", px(f.bottom + 5.0))
            .attr("stroke", "#999")
            .close()
            .open("text")
            .attr("x", &x)
            .attr("y", px(f.bottom + 18.0))
            .attr("text-anchor", "middle")
            .attr("class", "axis")
            .text(c)
            .close()
            .close();
    }
    let (l, r, t, b) = (px(f.left), px(f.right), px(f.top), px(f.bottom));
    for (x1, y1, x2, y2) in [(&l, &b, &r, &b), (&l, &t, &l, &b)] {
        svg.open("line")
            .attr("x1", x1)
            .attr("y1", y1)
            .attr("x2", x2)
            .attr("y2", y2)
            .attr("stroke", "#999")
            .close();
    }
    svg.open("text")
        .attr("x", px((f.left + f.right) / 2.0))
        .attr("y", px(f.x_title_y()))
        .attr("text-anchor", "middle")
        .attr("class", "axis-title")
        .attr("id", "chart-x-title")
        .text("simultaneous requests (log2 scale)")
        .close()
        .open("text")
        .attr("x", 0)
        .attr("y", 0)
        .attr("text-anchor", "middle")
        .attr("class", "axis-title")
        .attr("id", "chart-y-title")
        .attr(
            "transform",
            format_args!("translate(16 {}) rotate(-90)", px((f.top + f.bottom) / 2.0)),
        )
        .text(metric.label())
        .close()
        .close();
}

/// A legend entry: a line (or a circle, for the measured key) and a label.
pub(super) fn legend_entry(
    svg: &mut Markup,
    (lx, ly): (f64, f64),
    stroke: &str,
    label: &str,
    circle: bool,
) {
    if circle {
        svg.open("circle")
            .attr("class", "measured-key")
            .attr("cx", px(lx + 11.0))
            .attr("cy", px(ly))
            .attr("r", 4)
            .attr("fill", "#fff");
    } else {
        let y = px(ly);
        svg.open("line")
            .attr("x1", px(lx))
            .attr("x2", px(lx + 22.0))
            .attr("y1", &y)
            .attr("y2", &y);
    }
    svg.attr("stroke", stroke)
        .attr("stroke-width", 2)
        .close()
        .open("text")
        .attr("x", px(lx + 28.0))
        .attr("y", px(ly + 4.0))
        .attr("class", "legend-label")
        .text(label)
        .close();
}

/// One predicted line per context and the measured circles on top, with a
/// legend on the right (or below, on a narrow screen).
pub(super) fn chart_series(
    svg: &mut Markup,
    f: &Frame,
    o: &Output,
    decode: &[&Cell],
    measured: &[(u64, u64, f64)],
    metric: ChartMetric,
) {
    let contexts = &o.plan.harness.contexts_tokens;
    let color = |i: usize| COLORS.get(i % COLORS.len()).copied().unwrap_or("#000");
    for (i, &ctx) in contexts.iter().enumerate() {
        let pts: Vec<String> = decode
            .iter()
            .filter(|c| c.context_tokens == ctx)
            .filter_map(|c| {
                metric
                    .of_cell(c)
                    .map(|v| format!("{},{}", px(f.x(c.concurrency)), px(f.y(v))))
            })
            .collect();
        svg.open("g")
            .attr("class", "series")
            .attr("data-context", ctx)
            .open("polyline")
            .attr("points", pts.join(" "))
            .attr("fill", "none")
            .attr("stroke", color(i))
            .attr("stroke-width", 2)
            .close();
        for &(_, n, v) in measured.iter().filter(|m| m.0 == ctx) {
            svg.open("circle")
                .attr("class", "measured")
                .attr("cx", px(f.x(n)))
                .attr("cy", px(f.y(v)))
                .attr("r", 4)
                .attr("fill", "#fff")
                .attr("stroke", color(i))
                .attr("stroke-width", 2)
                .attr("data-context", ctx)
                .attr("data-concurrency", n)
                .attr("data-value", json_number(v))
                .leaf(
                    "title",
                    format_args!("measured {} x {n}: {v:.2}", format_tokens(ctx)),
                )
                .close();
        }
        let label = format!("context {}", format_tokens(ctx));
        legend_entry(svg, f.legend_at(i), color(i), &label, false);
        svg.close();
    }
    if !measured.is_empty() {
        // A gap after the contexts' entries when they are one column.
        let first = contexts.len() + usize::from(!f.narrow);
        svg.open("g").attr("class", "legend-kinds");
        legend_entry(svg, f.legend_at(first), "#888", "predicted", false);
        legend_entry(svg, f.legend_at(first + 1), "#888", "measured", true);
        svg.close();
    }
}

/// The chart as SVG text: read-only markup with no listeners, so it is
/// written as text and handed to the page whole ([`Markup`]); the same
/// nodes built by `html!` cost the module 4 KB of gzipped code more.
pub(super) fn chart_svg(
    o: &Output,
    f: &Frame,
    decode: &[&Cell],
    measured: &[(u64, u64, f64)],
    (yticks, step): (&[f64], f64),
    xticks: &[u64],
    (metric, title): (ChartMetric, &str),
) -> Html {
    let mut svg = Markup::new();
    svg.open("svg")
        .attr("id", "chart")
        .attr("role", "img")
        .attr("aria-labelledby", "chart-title")
        .attr("data-metric", metric.id())
        .attr("width", "100%")
        .attr("viewBox", format_args!("0 0 {} {}", f.w, f.h))
        .attr("preserveAspectRatio", "xMinYMin meet")
        .open("text")
        .attr("id", "chart-title")
        .attr("x", px(f.left))
        .attr("y", 22)
        .attr("class", "chart-title")
        .text(title)
        .close();
    chart_axes(&mut svg, f, yticks, step, xticks, metric);
    chart_series(&mut svg, f, o, decode, measured, metric);
    svg.html()
}

/// The chart of the chosen metric against concurrency: lines are core's
/// predictions, circles the measured run compared.
pub(super) fn chart(o: &Output, state: &State, dispatch: &Dispatch) -> Html {
    let metric = state.view.chart_metric;
    let (decode, _) = decode_cells(o);
    let measured = measured_points(o, metric);
    let ymax = decode
        .iter()
        .filter_map(|c| metric.of_cell(c))
        .chain(measured.iter().map(|m| m.2))
        .fold(0.0, f64::max);
    let (yticks, step) = nice_ticks(ymax);
    let f = Frame::new(
        &o.plan.harness.concurrency,
        yticks.last().copied().unwrap_or(1.0),
        state.view.narrow,
        o.plan.harness.contexts_tokens.len() + 2 * usize::from(!measured.is_empty()),
    );
    let lo = o
        .plan
        .harness
        .concurrency
        .iter()
        .copied()
        .min()
        .unwrap_or(1);
    let hi = o
        .plan
        .harness
        .concurrency
        .iter()
        .copied()
        .max()
        .unwrap_or(1);
    let xticks = log2_ticks(lo, hi);
    // On a narrow screen the x axis's title alone says what it is against.
    let title = if state.view.narrow {
        metric.label().to_string()
    } else {
        format!("{} against simultaneous requests", metric.label())
    };
    let svg = chart_svg(
        o,
        &f,
        &decode,
        &measured,
        (&yticks, step),
        &xticks,
        (metric, &title),
    );
    let onchange = {
        let d = dispatch.clone();
        Callback::from(move |e: Event| {
            let el: HtmlSelectElement = e.target_unchecked_into();
            if let Some(m) = ChartMetric::from_id(&el.value()) {
                d.dispatch(Action::ChartMetric(m));
            }
        })
    };
    html! {
        <section id="chart-section">
            <h2>{ "Chart" }</h2>
            <label class="chart-switch">{ "metric " }
                <select id="chart-metric" {onchange}>
                    { for ChartMetric::ALL.iter().map(|m| html! {
                        <option value={m.id()} selected={*m == metric}>{ m.label() }</option>
                    }) }
                </select>
            </label>
            { svg }
        </section>
    }
}
