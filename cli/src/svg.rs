//! Pictures: the matrix as a heat map and a comparison as measured against
//! predicted, drawn with plotters' SVG backend.

// Pixel coordinates of a picture of a few dozen cells: the float and index
// conversions below cannot overflow.
#![allow(clippy::cast_possible_truncation)]

use decodecalc_api::matrix::{Matrix, Phase, Status};
use decodecalc_api::measured::Comparison;
use decodecalc_api::units::format_tokens;
use decodecalc_api::Error;
use plotters::prelude::*;

fn err(e: impl std::fmt::Display) -> Error {
    Error::new(format!("cannot draw the SVG: {e}"))
}

/// The decode grid: rows contexts, columns concurrency; each cell coloured
/// by status and throughput, with total tok/s and TTFT written in.
pub fn matrix(m: &Matrix, title: &str) -> Result<String, Error> {
    let decode: Vec<_> = m
        .cells
        .iter()
        .filter(|c| c.phase == Phase::Decode)
        .collect();
    let mut contexts: Vec<u64> = decode.iter().map(|c| c.context_tokens).collect();
    contexts.dedup();
    let mut conc: Vec<u64> = decode.iter().map(|c| c.concurrency).collect();
    conc.sort_unstable();
    conc.dedup();
    let (cw, ch, left, top) = (104i32, 52i32, 70i32, 64i32);
    let w = (left + cw * conc.len() as i32 + 20) as u32;
    let h = (top + ch * contexts.len() as i32 + 50) as u32;
    let max = decode
        .iter()
        .filter_map(|c| c.total_tok_s)
        .fold(1.0, f64::max);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (w, h)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let font = ("sans-serif", 13).into_font();
        let small = ("sans-serif", 11).into_font();
        root.draw(&Text::new(
            title.to_string(),
            (left, 18),
            ("sans-serif", 15).into_font(),
        ))
        .map_err(err)?;
        root.draw(&Text::new("requests at once", (left, 38), small.clone()))
            .map_err(err)?;
        for (j, c) in conc.iter().enumerate() {
            let x = left + cw * j as i32;
            root.draw(&Text::new(
                c.to_string(),
                (x + cw / 2 - 8, top - 10),
                font.clone(),
            ))
            .map_err(err)?;
        }
        for (i, ctx) in contexts.iter().enumerate() {
            let y = top + ch * i as i32;
            root.draw(&Text::new(
                format_tokens(*ctx),
                (10, y + ch / 2 - 6),
                font.clone(),
            ))
            .map_err(err)?;
            for (j, c) in conc.iter().enumerate() {
                let x = left + cw * j as i32;
                let Some(cell) = decode
                    .iter()
                    .find(|d| d.context_tokens == *ctx && d.concurrency == *c)
                else {
                    continue;
                };
                let (r, g, b) = cell.status.heat_rgb(cell.total_tok_s, max);
                let color = RGBColor(r, g, b);
                root.draw(&Rectangle::new(
                    [(x, y), (x + cw - 2, y + ch - 2)],
                    color.filled(),
                ))
                .map_err(err)?;
                let ttft = cell.ttft_seen(m.workload);
                let (line1, line2) = match (cell.status, cell.total_tok_s, ttft) {
                    (Status::OverCapacity, _, _) => ("over capacity".to_string(), String::new()),
                    (s, Some(t), ttft) => (
                        format!("{t:.1} tok/s"),
                        format!(
                            "{}{}",
                            ttft.map(|(v, kind)| format!("{v:.0} ms TTFT {kind}"))
                                .unwrap_or_default(),
                            if s == Status::Queued { ", queued" } else { "" }
                        ),
                    ),
                    _ => (String::new(), String::new()),
                };
                root.draw(&Text::new(line1, (x + 6, y + 14), font.clone()))
                    .map_err(err)?;
                root.draw(&Text::new(line2, (x + 6, y + 32), small.clone()))
                    .map_err(err)?;
            }
        }
        root.draw(&Text::new(
            "context (rows); green: all run, amber: queued, grey: over capacity",
            (left, h as i32 - 20),
            small,
        ))
        .map_err(err)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}

/// Measured against predicted total tok/s, one point per measured decode
/// cell, on log axes with the line of perfect agreement.
pub fn comparison(c: &Comparison) -> Result<String, Error> {
    let pts: Vec<(f64, f64, String)> = c
        .cells
        .iter()
        .filter(|x| x.phase == Phase::Decode)
        .filter_map(|x| {
            Some((
                x.measured.total_tok_s?,
                x.predicted.total_tok_s?,
                format!("{} x {}", format_tokens(x.context_tokens), x.concurrency),
            ))
        })
        .collect();
    // Finite, positive points only: a log axis over nothing never ends.
    let pts: Vec<_> = pts
        .into_iter()
        .filter(|p| p.0.is_finite() && p.1.is_finite() && p.0 > 0.0 && p.1 > 0.0)
        .collect();
    if pts.is_empty() {
        return Err(
            Error::new("--svg: the measured run has no timed decode cell to draw")
                .with_hint("a comparison picture needs decode rows with a measured total tok/s"),
        );
    }
    let lo = pts
        .iter()
        .map(|p| p.0.min(p.1))
        .fold(f64::INFINITY, f64::min)
        .max(1.0)
        * 0.8;
    let hi = pts.iter().map(|p| p.0.max(p.1)).fold(1.0, f64::max) * 1.25;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (720, 560)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let m = &c.summary.metrics.total_tok_s;
        let mut chart = ChartBuilder::on(&root)
            .caption(
                format!(
                    "Total tok/s, predicted against measured ({} cells, MAPE {:.2}%)",
                    m.n, m.mape_pct
                ),
                ("sans-serif", 16),
            )
            .margin(16)
            .x_label_area_size(44)
            .y_label_area_size(60)
            .build_cartesian_2d((lo..hi).log_scale(), (lo..hi).log_scale())
            .map_err(err)?;
        chart
            .configure_mesh()
            .light_line_style(WHITE)
            .bold_line_style(RGBColor(225, 225, 225))
            .x_labels(8)
            .y_labels(8)
            .x_label_formatter(&|v| format!("{v:.0}"))
            .y_label_formatter(&|v| format!("{v:.0}"))
            .x_desc("measured total tok/s")
            .y_desc("predicted total tok/s")
            .draw()
            .map_err(err)?;
        chart
            .draw_series(LineSeries::new([(lo, lo), (hi, hi)], BLACK.mix(0.4)))
            .map_err(err)?;
        chart
            .draw_series(
                pts.iter()
                    .map(|(m, p, _)| Circle::new((*m, *p), 4, BLUE.filled())),
            )
            .map_err(err)?;
        chart
            .draw_series(pts.iter().map(|(m, p, label)| {
                Text::new(label.clone(), (*m, *p), ("sans-serif", 10).into_font())
            }))
            .map_err(err)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}
