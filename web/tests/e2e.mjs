// End-to-end test of the built page (web/dist) in headless Chromium, driven
// by playwright-core with Debian's /usr/bin/chromium. Run by tests/run.sh:
//   node web/tests/e2e.mjs
// It serves web/dist on 127.0.0.1 itself, compares the page with the CLI
// (DECODECALC_BIN, default target/release/decodecalc; tests/run.sh gives
// the test build's target/debug/decodecalc) and writes the README's screenshots,
// web/screenshot-1440.png and web/screenshot-390.png.
import { chromium } from "playwright-core";
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { readFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { join, extname, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const dist = join(root, "web", "dist");
const cli = process.env.DECODECALC_BIN || join(root, "target", "release", "decodecalc");
const chromiumPath = process.env.CHROMIUM || "/usr/bin/chromium";
const types = { ".html": "text/html", ".js": "text/javascript", ".wasm": "application/wasm", ".css": "text/css" };

function serve() {
  const server = createServer(async (req, res) => {
    const path = new URL(req.url, "http://127.0.0.1").pathname;
    const file = join(dist, path === "/" ? "index.html" : path);
    if (!file.startsWith(dist)) { res.writeHead(403).end(); return; }
    try {
      const body = await readFile(file);
      res.writeHead(200, { "content-type": types[extname(file)] || "application/octet-stream" }).end(body);
    } catch {
      res.writeHead(404).end("not found");
    }
  });
  return new Promise((ok) => server.listen(0, "127.0.0.1", () => ok(server)));
}

const matrixJson = (...args) =>
  JSON.parse(execFileSync(cli, ["matrix", "--format", "json", ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }));

const compareJson = (...args) =>
  JSON.parse(execFileSync(cli, ["compare", "--format", "json", ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }));

// A number attribute against a JSON figure: both absent, or the same double
// (serde_json writes 3587.0 where JavaScript writes 3587, so compared as numbers).
function sameNumber(attr, want, what) {
  if (want === null || want === undefined) {
    assert(attr === null || attr === undefined, `${what}: page ${attr}, CLI none`);
  } else {
    assert(attr !== null && attr !== undefined && Number(attr) === want, `${what}: page ${attr}, CLI ${want}`);
  }
}

let passed = 0, failed = 0;
async function check(name, fn) {
  try {
    await fn();
    passed += 1;
    console.log(`ok - ${name}`);
  } catch (e) {
    failed += 1;
    console.log(`FAILED - ${name}: ${e.message}`);
  }
}
function assert(cond, msg) { if (!cond) throw new Error(msg); }

// Every decode cell of the page against the CLI's JSON: status and total tok/s.
async function gridEquals(page, expected) {
  const cells = await page.$$eval("#matrix td.cell", (tds) => tds.map((td) => ({
    context: Number(td.dataset.context),
    concurrency: Number(td.dataset.concurrency),
    status: td.dataset.status,
    total: td.dataset.totalTokS === undefined ? null : td.dataset.totalTokS,
  })));
  const decode = expected.cells.filter((c) => c.phase === "decode");
  assert(cells.length === decode.length, `page has ${cells.length} cells, CLI ${decode.length}`);
  for (const e of decode) {
    const c = cells.find((x) => x.context === e.context_tokens && x.concurrency === e.concurrency);
    assert(c, `no cell ${e.context_tokens} x ${e.concurrency}`);
    assert(c.status === e.status, `${e.context_tokens} x ${e.concurrency}: status ${c.status} vs ${e.status}`);
    const want = e.total_tok_s === null ? null : JSON.stringify(e.total_tok_s);
    assert(c.total === want, `${e.context_tokens} x ${e.concurrency}: total ${c.total} vs ${want}`);
  }
  return cells;
}

const server = await serve();
const base = `http://127.0.0.1:${server.address().port}/`;
const browser = await chromium.launch({
  executablePath: chromiumPath,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
const errors = [];
page.on("pageerror", (e) => errors.push(String(e)));

try {
  await page.goto(base);
  await page.waitForSelector("#matrix td.cell", { timeout: 30000 });

  await check("the reference grid equals `decodecalc matrix --format json`", async () => {
    const cells = await gridEquals(page, matrixJson());
    assert(cells.length === 40, `expected 40 cells, got ${cells.length}`);
    const queued = cells.filter((c) => c.status === "queued");
    assert(queued.length === 1 && queued[0].context === 0 && queued[0].concurrency === 128, "one queued cell at 0 x 128");
  });

  await check("on first load every cell shows the reference's measured run: values and errors equal `decodecalc compare --format json`", async () => {
    const cmp = compareJson();
    const decode = cmp.cells.filter((c) => c.phase === "decode");
    const cells = await page.$$eval("#matrix td.cell", (tds) => tds.map((td) => ({
      context: Number(td.dataset.context), concurrency: Number(td.dataset.concurrency),
      measured: td.dataset.measuredTotalTokS ?? null, error: td.dataset.errorPct ?? null, text: td.textContent,
    })));
    assert(cells.length === decode.length, `page ${cells.length} cells, compare ${decode.length}`);
    let withError = 0;
    for (const c of cells) {
      const e = decode.find((x) => x.context_tokens === c.context && x.concurrency === c.concurrency);
      assert(e, `compare has no cell ${c.context} x ${c.concurrency}`);
      const where = `${c.context} x ${c.concurrency}`;
      sameNumber(c.measured, e.measured.total_tok_s, `${where} measured`);
      sameNumber(c.error, e.error_pct.total_tok_s, `${where} error`);
      if (e.error_pct.total_tok_s !== null) {
        withError += 1;
        assert(c.text.includes("measured ") && c.text.includes("error ") && c.text.includes("%"), `${where} text: ${c.text}`);
      }
    }
    assert(withError === cmp.summary.metrics.total_tok_s.n, `${withError} cells with an error, MAPE over ${cmp.summary.metrics.total_tok_s.n}`);
    const summary = page.locator("#compare-summary");
    assert(await summary.getAttribute("data-status-agreement") === String(cmp.summary.status_agreement), "status agreement");
    for (const m of ["total_tok_s", "per_request_tok_s", "tbt_ms", "ttft_ms", "prefill_tok_s"]) {
      sameNumber(await summary.locator(`tr[data-metric="${m}"]`).getAttribute("data-mape-pct"), cmp.summary.metrics[m].mape_pct, `${m} MAPE`);
    }
    const line = await page.locator("#compare-line").textContent();
    const mape = cmp.summary.metrics.total_tok_s.mape_pct.toFixed(2);
    assert(line.includes("MAPE") && line.includes("TTFT") && line.includes(`total tok/s ${mape}%`), `summary line: ${line}`);
  });

  await check("each cell's status reads without colour (symbol and word) and the legend says what each means", async () => {
    const cells = await page.$$eval("#matrix td.cell", (tds) => tds.map((td) => ({ status: td.dataset.status, mark: td.querySelector(".st")?.textContent ?? "" })));
    const want = { valid: "\u2713", queued: "\u25f7 queued", over_capacity: "\u2715 over capacity" };
    for (const c of cells) assert(c.mark === want[c.status], `${c.status} cell marked ${JSON.stringify(c.mark)}`);
    assert(new Set(cells.map((c) => c.status)).size === 3, "the reference has all three statuses");
    const legend = await page.$$eval("#status-legend [data-status]", (ss) => ss.map((s) => [s.dataset.status, s.textContent]));
    assert(legend.length === 3, `${legend.length} legend entries`);
    for (const [st, text] of legend) assert(text.includes(want[st]) && text.includes(":"), `legend ${st}: ${text}`);
  });

  await check("the prefill row, memory bar and chart are drawn", async () => {
    assert(await page.locator("#prefill td[data-prefill-tok-s]").count() === 5, "five prefill cells");
    assert(await page.locator("#memory .seg[data-segment=kv]").count() === 1, "a KV pool segment");
    assert(await page.locator("#chart polyline").count() === 5, "one line per context");
  });

  await check("the error bands of the calibration are shown, as the CLI's JSON has them", async () => {
    const text = await page.locator("#error-bands").innerText();
    const bands = matrixJson().error_bands;
    const t = bands.tpot;
    assert(t && t.hold_out === "leave-family-out", `tpot band: ${JSON.stringify(t)}`);
    // The page words the CLI's band: its median, p90 (to a whole percent),
    // figures and what was held out.
    const pct = (x) => [Math.floor(x), Math.ceil(x)].map((v) => `+-${v}%`);
    assert(pct(t.median_abs_pct).some((m) => text.includes(`${m} median`)), `median ${t.median_abs_pct}: ${text}`);
    assert(pct(t.p90_abs_pct).some((m) => text.includes(`${m} p90`)), `p90 ${t.p90_abs_pct}: ${text}`);
    assert(text.includes(`a model family held out, ${t.figures} figures`), `bands: ${text}`);
    assert(text.includes(bands.class) && bands.class === "ampere-geforce", `bands name the class: ${text}`);
    // One line per figure and per workload regime, not a paragraph.
    const items = await page.locator("#error-bands li").count();
    assert(items === 3 + bands.tpot_by_regime.length, `${items} lines`);
  });


  await check("the first screen holds the answer at 1440 px and at 390 px (README screenshots)", async () => {
    for (const [width, height] of [[1440, 900], [390, 844]]) {
      const p = await browser.newPage({ viewport: { width, height } });
      await p.goto(base);
      await p.waitForSelector("#matrix td.cell", { timeout: 30000 });
      const grid = await p.$eval("#matrix", (e) => e.getBoundingClientRect().toJSON());
      assert(grid.top >= 0 && grid.bottom <= height, `${width} px: the grid spans ${grid.top}-${grid.bottom} of ${height}`);
      for (const id of ["#model", "#gpu", "#contexts", "#concurrency"]) {
        const r = await p.$eval(id, (e) => e.getBoundingClientRect().toJSON());
        assert(r.bottom <= height && r.right <= width, `${width} px: ${id} is off the first screen`);
      }
      // The grid's cell details (the workload's figures per cell) follow it on the first screen.
      if (width === 1440) {
        const d = await p.$eval("#cell-details", (e) => e.getBoundingClientRect().toJSON());
        assert(d.bottom <= height, `1440 px: the cell details end at ${d.bottom}`);
      }
      await p.screenshot({ path: join(root, "web", `screenshot-${width}.png`) });
      await p.close();
    }
  });

  await check("at 390 px the page never scrolls sideways: the grid scrolls in its own box, context column fixed, every column reachable, no label outside the viewport", async () => {
    const p = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await p.goto(base);
    await p.waitForSelector("#matrix td.cell", { timeout: 30000 });
    const page_width = await p.evaluate(() => document.documentElement.scrollWidth);
    assert(page_width <= 390, `the page is ${page_width} px wide`);
    // Every element with text of its own, outside a scrolling box, lies in
    // the viewport (measured from element boxes).
    const outside = await p.evaluate(() => {
      const scrolls = (el) => {
        for (let a = el.parentElement; a; a = a.parentElement) {
          const o = getComputedStyle(a).overflowX;
          if (o === "auto" || o === "scroll") return true;
        }
        return false;
      };
      const out = [];
      for (const el of document.querySelectorAll("main *")) {
        const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
        if (!own || scrolls(el)) continue;
        const r = el.getBoundingClientRect();
        if (r.width === 0 && r.height === 0) continue;
        if (r.left < -0.5 || r.right > 390.5) out.push(`${el.tagName.toLowerCase()}${el.id ? "#" + el.id : ""} "${el.textContent.trim().slice(0, 30)}" ${r.left.toFixed(0)}..${r.right.toFixed(0)}`);
      }
      return out;
    });
    assert(outside.length === 0, `labels outside the viewport: ${outside.join("; ")}`);
    // No memory-bar label is cut by its segment, here or at 1440 px.
    for (const width of [390, 1440]) {
      await p.setViewportSize({ width, height: 844 });
      const clipped = await p.$$eval("#memory .seg", (segs) => segs.filter((s) => s.textContent.trim() && s.scrollWidth > s.clientWidth + 1).map((s) => s.textContent));
      assert(clipped.length === 0, `${width} px: clipped memory labels: ${clipped.join(", ")}`);
    }
    await p.setViewportSize({ width: 390, height: 844 });
    // The grid's box scrolls to its last column; the context column stays put.
    const reach = await p.evaluate(() => {
      const box = document.querySelector("#matrix").parentElement;
      const head = document.querySelector("#matrix thead th:first-child").getBoundingClientRect().left;
      box.scrollLeft = box.scrollWidth;
      const last = document.querySelector("#matrix thead th:last-child").getBoundingClientRect();
      const ctx = document.querySelector("#matrix tbody th").getBoundingClientRect();
      const frame = box.getBoundingClientRect();
      return { scrolls: box.scrollWidth > box.clientWidth, lastRight: last.right, frameRight: frame.right, ctxLeft: ctx.left, head, columns: document.querySelectorAll("#matrix thead th").length };
    });
    assert(reach.columns === 9, `columns ${reach.columns}`);
    assert(reach.lastRight <= reach.frameRight + 0.5 && reach.lastRight <= 390.5, `the last column ends at ${reach.lastRight}, the box at ${reach.frameRight}`);
    assert(Math.abs(reach.ctxLeft - reach.head) < 1, `the context column moved from ${reach.head} to ${reach.ctxLeft}`);
    // A cell's details open right under the grid, on the same screen as the cell.
    await p.locator('#matrix td[data-context="16384"][data-concurrency="8"]').click();
    const gap = await p.evaluate(() => {
      const d = document.querySelector("#cell-details").getBoundingClientRect();
      const c = document.querySelector('#matrix td[data-context="16384"][data-concurrency="8"]').getBoundingClientRect();
      return d.top - c.bottom;
    });
    assert(gap < 400, `the details are ${gap} px below the cell`);
    await p.close();
  });

  await check("the chart's text draws at 10 px or more, inside the chart and apart, at 390 px and at 1440 px", async () => {
    const p = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await p.goto(base);
    await p.waitForSelector("#chart circle.measured", { timeout: 30000 });
    const texts = () => p.$eval("#chart", (svg) => {
      const box = svg.getBoundingClientRect();
      const scale = box.width / svg.viewBox.baseVal.width;
      return [...svg.querySelectorAll("text")].map((t) => {
        const b = t.getBoundingClientRect();
        return {
          text: t.textContent, px: parseFloat(getComputedStyle(t).fontSize) * scale,
          box: [b.left, b.top, b.right, b.bottom],
          inside: b.left >= box.left - 0.5 && b.right <= box.right + 0.5 && b.top >= box.top - 0.5 && b.bottom <= box.bottom + 0.5,
        };
      });
    });
    const legible = async (width) => {
      const ts = await texts();
      const small = ts.filter((t) => t.px < 10);
      assert(small.length === 0, `${width} px: ${small.map((t) => `"${t.text}" ${t.px.toFixed(1)} px`).join(", ")}`);
      const out = ts.filter((t) => !t.inside);
      assert(out.length === 0, `${width} px: outside the chart: ${out.map((t) => t.text).join(", ")}`);
      const overlap = (a, b) => a.box[0] < b.box[2] && b.box[0] < a.box[2] && a.box[1] < b.box[3] && b.box[1] < a.box[3];
      const clashes = [];
      ts.forEach((a, i) => ts.slice(i + 1).forEach((b) => { if (overlap(a, b)) clashes.push(`"${a.text}" / "${b.text}"`); }));
      assert(clashes.length === 0, `${width} px: overlapping text: ${clashes.join(", ")}`);
    };
    await legible(390);
    assert(await p.$eval("#chart", (s) => s.viewBox.baseVal.width) === 400, "390 px: the narrow frame");
    await p.setViewportSize({ width: 1440, height: 900 });
    await p.waitForFunction(() => document.querySelector("#chart").viewBox.baseVal.width === 760, null, { timeout: 5000 });
    await legible(1440);
    await p.close();
  });

  await check("every field has its flag's help, unit and default from core's table", async () => {
    const help = await page.locator("#help-max-num-batched-tokens").innerText();
    assert(help.includes("tokens") && help.includes("vLLM default: 2048"), help);
    const util = await page.locator("#help-gpu-memory-utilization").innerText();
    assert(util.includes("vLLM default: 0.92"), util);
    const fields = await page.$$eval(".field input, .field select, .field textarea", (xs) => xs.map((x) => x.id));
    const missing = [];
    for (const id of fields.filter((id) => !id.startsWith("plan-") && id !== "model-config" && id !== "measured")) {
      if (await page.locator(`#help-${id}`).count() !== 1) missing.push(id);
    }
    assert(missing.length === 0, `fields without help: ${missing.join(", ")}`);
    const help_text = execFileSync(cli, ["matrix", "--help"], { encoding: "utf8" });
    assert(help_text.includes("--max-num-batched-tokens") && help_text.includes("[vLLM default: 2048"), "the CLI's help has the same row");
  });

  await check("clicking a cell asks the solvers about it", async () => {
    await page.locator('#matrix td[data-context="32768"][data-concurrency="16"]').click();
    await page.waitForSelector("#plan-answers", { timeout: 10000 });
    assert(await page.inputValue("#plan-context") === "32768", "the plan's context is the cell's");
    assert(await page.inputValue("#plan-concurrency") === "16", "the plan's requests are the cell's");
    const solved = JSON.parse(execFileSync(cli, ["solve", "--for", "max-concurrency", "--context", "32768", "--format", "json"], { encoding: "utf8" }));
    const valid = await page.locator("#plan-answers").getAttribute("data-valid-max-concurrency");
    assert(valid === String(solved.valid_max_concurrency), `page ${valid}, CLI ${solved.valid_max_concurrency}`);
    // The pointer leaves the grid, so no hover moves the details later.
    await page.mouse.move(0, 0);
    await page.fill("#plan-concurrency", "");
    await page.fill("#plan-context", "");
  });

  await check("a cell shows its details on focus", async () => {
    await page.locator('#matrix td[data-context="16384"][data-concurrency="64"]').focus();
    const text = await page.locator("#cell-details").textContent();
    assert(text.includes("Over capacity") && text.includes("blocks"), text);
  });

  await check("keyboard: Tab reaches a grid cell, and Enter or Space on it shows its details as a click does", async () => {
    // From the first field of the page, as a keyboard user starts.
    await page.locator("#model").focus();
    let active = null;
    for (let i = 0; i < 60 && !active; i++) {
      await page.keyboard.press("Tab");
      active = await page.evaluate(() => {
        const el = document.activeElement;
        return el && el.matches("#matrix td.cell") ? { context: el.dataset.context, concurrency: el.dataset.concurrency, row: el.parentElement.querySelector("th").textContent } : null;
      });
    }
    assert(active, "60 Tabs never reached a grid cell");
    const first = await page.$eval("#matrix td.cell", (td) => [td.dataset.context, td.dataset.concurrency]);
    assert(active.context === first[0] && active.concurrency === first[1], `Tab reached ${active.context} x ${active.concurrency} first`);
    const mine = `${active.row} x ${active.concurrency}:`;
    const details = () => page.locator("#cell-details").textContent();
    assert((await details()).startsWith(mine), `details on Tab: ${await details()}`);
    for (const key of ["Enter", " "]) {
      // The mouse moves the details to another cell; the key brings back the focused one's.
      await page.mouse.move(0, 0);
      await page.hover('#matrix td[data-context="16384"][data-concurrency="64"]');
      await page.waitForFunction(() => document.querySelector("#cell-details")?.textContent.startsWith("16K x 64:"));
      await page.keyboard.press(key);
      await page.waitForFunction((m) => document.querySelector("#cell-details")?.textContent.startsWith(m), mine, { timeout: 5000 });
      const still = await page.evaluate(() => { const el = document.activeElement; return el.matches("#matrix td.cell") ? [el.dataset.context, el.dataset.concurrency] : null; });
      assert(still && still[0] === active.context && still[1] === active.concurrency, `${JSON.stringify(key)}: the cell keeps its focus across the page's re-render (${still})`);
    }
    await page.keyboard.press("Tab");
    const next = await page.evaluate(() => document.activeElement.dataset.concurrency);
    assert(next && next !== active.concurrency, "Tab moves to the next cell");
    assert(await page.locator("#matrix td.cell[tabindex='0']").count() === await page.locator("#matrix td.cell").count(), "every cell is focusable");
  });

  await check("each cell shows its held-out band under its number, as the CLI's JSON gives it", async () => {
    const cli_cells = JSON.parse(execFileSync(cli, ["matrix", "--format", "json"], { encoding: "utf8" })).cells;
    for (const [c, n] of [[0, 1], [16384, 32]]) {
      const want = cli_cells.find((x) => x.phase === "decode" && x.context_tokens === c && x.concurrency === n).error_band.throughput.p90_abs_pct;
      const text = await page.locator(`#matrix td[data-context="${c}"][data-concurrency="${n}"] .band`).textContent();
      assert(text === `±${Math.round(want)}% (p90 held out)`, `${c} x ${n}: ${text}, CLI ${want}`);
    }
  });

  await check("a hover, a metric switch and a resize recompute nothing (computations counted)", async () => {
    const count = () => page.$eval("main", (m) => Number(m.dataset.computes));
    const before = await count();
    assert(before >= 1, `computes ${before}`);
    for (const [c, n] of [["0", "1"], ["16384", "32"], ["32768", "8"]]) {
      await page.hover(`#matrix td[data-context="${c}"][data-concurrency="${n}"]`);
      await page.waitForFunction((m) => document.querySelector("#cell-details")?.textContent.includes(m), ` x ${n}:`, { timeout: 5000 });
    }
    await page.selectOption("#chart-metric", "tbt_ms");
    await page.waitForFunction(() => document.querySelector("#chart")?.dataset.metric === "tbt_ms", null, { timeout: 5000 });
    await page.selectOption("#chart-metric", "total_tok_s");
    await page.waitForFunction(() => document.querySelector("#chart")?.dataset.metric === "total_tok_s", null, { timeout: 5000 });
    const size = page.viewportSize();
    await page.setViewportSize({ width: 500, height: size.height });
    await page.setViewportSize(size);
    await page.mouse.move(0, 0);
    const after = await count();
    assert(after === before, `a hover, metric switch or resize recomputed: ${before} -> ${after}`);
    // A form change does recompute, once.
    await page.fill("#max-tokens", "4096");
    await page.waitForFunction((b) => Number(document.querySelector("main").dataset.computes) > b, before, { timeout: 10000 });
    await page.fill("#max-tokens", "");
    await page.waitForFunction((b) => Number(document.querySelector("main").dataset.computes) >= b + 2, before, { timeout: 10000 });
  });

  await check("the metric switch redraws the chart: title, axis, lines and measured circles", async () => {
    const cmp = compareJson();
    const measured = (m) => cmp.cells.filter((c) => c.phase === "decode" && c.measured[m] !== null);
    const snapshot = () => page.evaluate(() => ({
      metric: document.querySelector("#chart").dataset.metric,
      title: document.querySelector("#chart-title").textContent,
      yTitle: document.querySelector("#chart-y-title").textContent,
      xTitle: document.querySelector("#chart-x-title").textContent,
      yticks: [...document.querySelectorAll("#chart .ytick")].map((t) => Number(t.dataset.value)),
      yLabels: [...document.querySelectorAll("#chart .ytick text")].map((t) => t.textContent),
      xticks: [...document.querySelectorAll("#chart .xtick")].map((t) => Number(t.dataset.value)),
      lines: [...document.querySelectorAll("#chart polyline")].map((p) => p.getAttribute("points")),
      circles: [...document.querySelectorAll("#chart circle.measured")].map((c) => ({ context: Number(c.dataset.context), concurrency: Number(c.dataset.concurrency), value: Number(c.dataset.value), cy: c.getAttribute("cy") })),
    }));
    const checkCircles = (snap, m) => {
      const want = measured(m);
      assert(snap.circles.length === want.length, `${m}: ${snap.circles.length} circles, ${want.length} measured cells`);
      for (const w of want) {
        const c = snap.circles.find((x) => x.context === w.context_tokens && x.concurrency === w.concurrency);
        assert(c && c.value === w.measured[m], `${m} ${w.context_tokens} x ${w.concurrency}: circle ${c && c.value}, measured ${w.measured[m]}`);
      }
    };
    const roundTicks = (snap) => {
      assert(snap.yticks.length >= 3 && snap.yticks[0] === 0, `y ticks ${snap.yticks}`);
      const step = snap.yticks[1];
      const mantissa = step / 10 ** Math.floor(Math.log10(step));
      assert([1, 2, 5].some((x) => Math.abs(mantissa - x) < 1e-9), `y step ${step} is not 1, 2 or 5 x 10^k`);
      snap.yticks.forEach((t, i) => assert(Math.abs(t - i * step) < 1e-9 * step, `y ticks ${snap.yticks}`));
      assert(snap.yLabels.every((l) => l !== ""), "every y tick labelled");
      assert(JSON.stringify(snap.xticks) === JSON.stringify([1, 2, 4, 8, 16, 32, 64, 128]), `x ticks ${snap.xticks}`);
    };
    const before = await snapshot();
    assert(before.metric === "total_tok_s" && before.title.includes("total tok/s") && before.yTitle === "total tok/s" && before.xTitle.includes("simultaneous requests"), JSON.stringify(before.title));
    roundTicks(before);
    checkCircles(before, "total_tok_s");
    assert(before.lines.length === 5, "one line per context");
    await page.selectOption("#chart-metric", "ttft_ms");
    await page.waitForFunction(() => document.querySelector("#chart")?.dataset.metric === "ttft_ms", null, { timeout: 5000 });
    const after = await snapshot();
    assert(after.title.includes("TTFT") && after.yTitle.includes("TTFT"), `title ${after.title}`);
    assert(JSON.stringify(after.yticks) !== JSON.stringify(before.yticks), "the y axis rescaled");
    assert(after.lines.length === 5 && after.lines.some((l, i) => l !== before.lines[i]), "the lines redrawn");
    roundTicks(after);
    checkCircles(after, "ttft_ms");
    for (const m of ["per_request_tok_s", "tbt_ms", "total_tok_s"]) {
      await page.selectOption("#chart-metric", m);
      await page.waitForFunction((m) => document.querySelector("#chart")?.dataset.metric === m, m, { timeout: 5000 });
      checkCircles(await snapshot(), m);
    }
  });

  await check("changing --gpu-memory-utilization changes the grid as the CLI does", async () => {
    const before = await page.locator('#matrix td[data-context="0"][data-concurrency="128"]').getAttribute("data-total-tok-s");
    await page.fill("#gpu-memory-utilization", "0.9");
    await page.waitForFunction((b) => {
      const td = document.querySelector('#matrix td[data-context="0"][data-concurrency="128"]');
      return td && td.dataset.totalTokS !== b;
    }, before, { timeout: 10000 });
    await gridEquals(page, matrixJson("--gpu-memory-utilization", "0.9"));
    assert(page.url().includes("gpu-memory-utilization=0.9"), `URL ${page.url()}`);
  });

  await check("a link reproduces the page", async () => {
    const other = await browser.newPage();
    await other.goto(page.url());
    await other.waitForSelector("#matrix td.cell");
    await gridEquals(other, matrixJson("--gpu-memory-utilization", "0.9"));
    assert(await other.inputValue("#gpu-memory-utilization") === "0.9", "field restored from the URL");
    await other.close();
    await page.fill("#gpu-memory-utilization", "");
    await page.waitForFunction(() => !location.search.includes("gpu-memory-utilization"));
  });

  await check("choosing a vLLM release recomputes the grid as `--vllm-version` does", async () => {
    assert((await page.locator("#modelled-version").textContent()).includes("0.32.0"), "0.32.0 by default");
    try {
      // 0.26: hybrid prefix caching in `all` mode (the reference's
      // int4_per_token_head KV dtype exists from 0.25).
      await page.selectOption("#vllm-version", "0.26.0");
      await page.waitForFunction(() => document.querySelector("#modelled-version")?.textContent.includes("0.26.0"), null, { timeout: 10000 });
      await gridEquals(page, matrixJson("--vllm-version", "0.26.0"));
      assert(page.url().includes("vllm-version=0.26.0"), `URL ${page.url()}`);
    } finally {
      await page.selectOption("#vllm-version", "");
      await page.waitForFunction(() => !location.search.includes("vllm-version"));
    }
  });

  await check("a pasted vLLM start-up log sets the setup, pins the pool and is checked figure by figure", async () => {
    const log = join(root, "tests", "fixtures", "vllm-logs", "llmd-llama31-8b-8k-v0.19.0.log");
    await page.selectOption("#gpu", "h100-sxm");
    await page.fill("#vllm-log", readFileSync(log, "utf8"));
    await page.waitForSelector("#log-check tr[data-figure]", { timeout: 10000 });
    const rows = await page.$$eval("#log-check tr[data-figure]", (trs) => trs.map((tr) => ({
      figure: tr.dataset.figure, logged: Number(tr.dataset.logged), agrees: tr.dataset.agrees,
    })));
    const capJson = JSON.parse(execFileSync(cli, ["capacity", "--format", "json", "--gpu", "h100-sxm", "--vllm-log", log], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }));
    assert(rows.length === capJson.log_check.length && rows.length === 4, `${rows.length} rows, CLI ${capJson.log_check.length}`);
    for (const r of rows) assert(r.agrees === "true", `${r.figure} disagrees`);
    assert((await page.locator("#modelled-version").textContent()).includes("0.19.0"), "the log's release");
    await gridEquals(page, matrixJson("--gpu", "h100-sxm", "--vllm-log", log));
    await page.fill("#vllm-log", "");
    await page.selectOption("#gpu", "");
    await page.waitForFunction(() => !document.querySelector("#log-check"));
  });

  await check("compare mode loads the measured CSV and shows the summary", async () => {
    await page.setInputFiles("#measured", join(root, "data", "measured", "rtx3090-nemotron-nano-12b-v2-awq4-vllm0.32.csv"));
    await page.waitForSelector("#compare-summary", { timeout: 10000 });
    const agree = await page.locator("#compare-summary").getAttribute("data-status-agreement");
    const cells = await page.locator("#compare-summary").getAttribute("data-cells");
    assert(agree === "45" && cells === "45", `statuses ${agree}/${cells}`);
    const mape = Number(await page.locator('#compare-summary tr[data-metric="total_tok_s"] td:nth-of-type(2)').textContent());
    assert(mape > 0 && mape <= 4, `total tok/s MAPE ${mape}`);
    const err = await page.locator('#matrix td[data-context="16384"][data-concurrency="32"]').getAttribute("data-error-pct");
    assert(err !== null && Math.abs(Number(err)) < 10, `16K x 32 error ${err}`);
  });

  await check("a dropped harness benchmark_results.json is compared as `decodecalc compare` does", async () => {
    const file = join(root, "tests", "fixtures", "benchmark_results.json");
    await page.setInputFiles("#measured", file);
    await page.waitForFunction(() => document.querySelector(".loaded")?.textContent.includes("benchmark_results.json"), null, { timeout: 10000 });
    const c = JSON.parse(execFileSync(cli, ["compare", "--measured", file, "--format", "json"], { encoding: "utf8" }));
    const agree = await page.locator("#compare-summary").getAttribute("data-status-agreement");
    assert(agree === String(c.summary.status_agreement), `statuses ${agree}, CLI ${c.summary.status_agreement}`);
    const mape = await page.locator('#compare-summary tr[data-metric="total_tok_s"]').getAttribute("data-mape-pct");
    assert(Number(mape) === c.summary.metrics.total_tok_s.mape_pct, `MAPE ${mape}, CLI ${c.summary.metrics.total_tok_s.mape_pct}`);
  });

  await check("a dropped `vllm bench serve` JSON is predicted and compared as `decodecalc compare` does", async () => {
    const file = join(root, "tests", "fixtures", "bench-serve", "tokenkaki-v0.19.1-a100-qwen3-8b-chat-summary.json");
    await page.selectOption("#model", "qwen3-8b");
    await page.selectOption("#gpu", "a100-80gb");
    await page.setInputFiles("#measured", file);
    await page.waitForSelector("#bench-compare tr[data-figure]", { timeout: 15000 });
    const cli_out = JSON.parse(execFileSync(cli, ["compare", "--model", "qwen3-8b", "--gpu", "a100-80gb", "--measured", file, "--format", "json"], { encoding: "utf8" }));
    const rows = await page.$$eval("#bench-compare tr[data-figure]", (trs) => trs.map((tr) => ({
      figure: tr.dataset.figure, measured: Number(tr.dataset.measured), predicted: Number(tr.dataset.predicted), error: Number(tr.dataset.errorPct),
    })));
    assert(rows.length === cli_out.comparison.length && rows.length >= 10, `page ${rows.length} figures, CLI ${cli_out.comparison.length}`);
    for (const [i, r] of rows.entries()) {
      const c = cli_out.comparison[i];
      assert(r.figure === c.figure && r.measured === c.measured && r.predicted === c.predicted && r.error === c.error_pct,
        `${r.figure}: page ${r.predicted} (${r.error}%), CLI ${c.predicted} (${c.error_pct}%)`);
    }
    await page.setInputFiles("#measured", join(root, "data", "measured", "rtx3090-nemotron-nano-12b-v2-awq4-vllm0.32.csv"));
    await page.selectOption("#model", "");
    await page.selectOption("#gpu", "");
    await page.waitForSelector("#compare-summary", { timeout: 10000 });
  });

  await check("a mixture-of-experts model carries the bands of MoE runs no fit saw, as the CLI's JSON has them", async () => {
    const p = await browser.newPage();
    await p.goto(base);
    await p.waitForSelector("#matrix td.cell", { timeout: 30000 });
    await p.selectOption("#model", "qwen3-30b-a3b");
    await p.selectOption("#gpu", "h100-sxm");
    await p.waitForFunction(() => document.querySelector("#error-bands")?.innerText.includes("MoE serving runs no fit saw"), null, { timeout: 15000 });
    const text = await p.locator("#error-bands").innerText();
    const t = matrixJson("--model", "qwen3-30b-a3b", "--gpu", "h100-sxm").error_bands.tpot;
    assert(t && t.hold_out === "unfitted-moe-runs" && t.figures > 500, `tpot band: ${JSON.stringify(t)}`);
    const pct = (x) => [Math.floor(x), Math.ceil(x)].map((v) => `+-${v}%`);
    assert(pct(t.median_abs_pct).some((m) => text.includes(`time between tokens: ${m} median`)), `median ${t.median_abs_pct}: ${text}`);
    assert(text.includes(`MoE serving runs no fit saw, ${t.figures} figures`), `bands: ${text}`);
    assert(text.includes("throughput: time per output token's"), `throughput: ${text}`);
    await p.close();
  });

  await check("an invalid value shows a message next to its field, not a blank page", async () => {
    await page.fill("#gpu-memory-utilization", "1.5");
    await page.waitForSelector("#error-gpu-memory-utilization", { timeout: 10000 });
    const msg = await page.locator("#error-gpu-memory-utilization").textContent();
    assert(msg.includes("(0, 1]"), msg);
    assert(await page.locator("#gpu-memory-utilization").isVisible(), "the form stays");
    await page.fill("#concurrency", "");
    await page.fill("#gpu-memory-utilization", "0.94");
    await page.fill("#concurrency", "1,,2");
    await page.waitForSelector("#error-concurrency", { timeout: 10000 });
    await page.fill("#concurrency", "");
    await page.waitForSelector("#matrix td.cell");
  });

  await check("a malformed measured file shows a message", async () => {
    await page.setInputFiles("#measured", { name: "bad.csv", mimeType: "text/csv", buffer: Buffer.from("phase,context_tokens\nx,1\n") });
    await page.waitForSelector("#error-measured", { timeout: 10000 });
    const msg = await page.locator("#error-measured").textContent();
    assert(msg.includes("missing column"), msg);
  });

  await check("a pasted launch line fills the form's scenario and shows warnings", async () => {
    // A launch line names a model but no GPU: the page asks for one next
    // to the GPU field instead of assuming the reference card (issue 25).
    await page.fill("#vllm-command", "vllm serve meta-llama/Llama-3.1-8B --max-model-len 16k --foo 1");
    await page.waitForSelector("#error-gpu", { timeout: 10000 });
    const asked = await page.locator("#error-gpu").textContent();
    assert(asked.includes("no GPU given for Llama-3.1-8B") && asked.includes("l4 (22 GiB)"), asked);
    await page.selectOption("#gpu", "rtx3090");
    await page.waitForSelector("#warnings li", { timeout: 10000 });
    const w = await page.locator("#warnings").textContent();
    assert(w.includes("unknown flag --foo 1 ignored"), w);
    await gridEquals(page, matrixJson("--vllm-command", "vllm serve meta-llama/Llama-3.1-8B --max-model-len 16k --foo 1", "--gpu", "rtx3090"));
    await page.fill("#vllm-command", "");
    await page.selectOption("#gpu", "");
    await page.waitForFunction(() => !document.querySelector("#warnings"));
  });

  await check("a model's config.json loaded from disk drives the grid", async () => {
    const cfg = join(root, "tests", "fixtures", "configs", "qwen2.5-7b.json");
    await page.selectOption("#gpu", "rtx3090");
    await page.setInputFiles("#model-config", cfg);
    await page.waitForFunction(() => document.querySelector("#scenario")?.textContent.includes("qwen2.5-7b.json") || document.querySelector("#scenario")?.textContent.includes("Qwen2.5"), null, { timeout: 10000 });
    await gridEquals(page, matrixJson("--model", cfg, "--gpu", "rtx3090"));
    await page.selectOption("#gpu", "");
  });

  await check("--speculative-config in the form changes the grid as the CLI does and names its acceptance", async () => {
    const cfg = join(root, "data", "hub", "nvidia--Qwen3.6-27B-NVFP4.json");
    const spec = '{"method": "mtp", "num_speculative_tokens": 3}';
    await page.fill("#gpu-memory-utilization", "");
    await page.selectOption("#gpu", "rtx5090");
    await page.setInputFiles("#model-config", cfg);
    await page.fill("#max-model-len", "65536");
    await page.fill("#max-num-seqs", "8");
    await page.fill("#speculative-config", spec);
    await page.waitForSelector("#warnings li", { timeout: 10000 });
    const w = await page.locator("#warnings").textContent();
    assert(w.includes("speculative decoding: mtp with 3 draft tokens"), w);
    await gridEquals(page, matrixJson("--model", cfg, "--gpu", "rtx5090", "--max-model-len", "65536", "--max-num-seqs", "8", "--speculative-config", spec));
    // A config vLLM refuses is an error beside the field.
    await page.fill("#speculative-config", '{"method": "mtp"}');
    await page.waitForSelector("#error-speculative-config", { timeout: 10000 });
    const e = await page.locator("#error-speculative-config").textContent();
    assert(e.includes("needs num_speculative_tokens"), e);
    await page.fill("#speculative-config", "");
    await page.fill("#max-num-seqs", "");
    await page.fill("#max-model-len", "");
    await page.setInputFiles("#model-config", []);
    await page.selectOption("#gpu", "");
  });

  await check("a Hugging Face repo is fetched from the Hub in the browser (a routed response), drives the grid as its config.json does in the CLI, and the Hub's refusals are core's errors", async () => {
    // Yi-34B's config.json, and a safetensors index with its published
    // total (2 bytes x 34,388,917,248 parameters, data/hub/published.csv).
    const cfg = join(root, "data", "hub", "01-ai--Yi-34B.json");
    const total = 2 * 34388917248;
    const asked = [];
    const cors = { "access-control-allow-origin": "*", "access-control-expose-headers": "X-Error-Code, X-Repo-Commit, ETag" };
    await page.route("https://huggingface.co/**", (route) => {
      const path = new URL(route.request().url()).pathname;
      asked.push(path);
      const m = path.match(/^\/([^/]+\/[^/]+)\/resolve\/main\/(.+)$/);
      const answer = (status, body, code) =>
        route.fulfill({ status, body, headers: code ? { ...cors, "x-error-code": code } : cors });
      if (!m) return answer(404, "", null);
      const [, repo, file] = m;
      if (repo === "acme/gated-34b") return answer(401, "Access restricted", "GatedRepo");
      if (repo === "acme/private-model") return answer(401, "Unauthorized", null);
      if (repo !== "acme/Yi-34B-mirror") return answer(404, "Repository not found", "RepoNotFound");
      if (file === "config.json") return answer(200, readFileSync(cfg, "utf8"), null);
      if (file === "model.safetensors.index.json") return answer(200, JSON.stringify({ metadata: { total_size: total }, weight_map: {} }), null);
      return answer(404, "Entry not found", "EntryNotFound");
    });
    await page.selectOption("#gpu", "h100-sxm");
    await page.fill("#hub-repo", "acme/Yi-34B-mirror");
    await page.click("#hub-fetch");
    await page.waitForSelector("#hub-status:has-text('loaded acme/Yi-34B-mirror')", { timeout: 10000 });
    const status = await page.locator("#hub-status").textContent();
    assert(status.includes("config.json, model.safetensors.index.json"), status);
    for (const f of ["config.json", "hf_quant_config.json", "model.safetensors.index.json"]) {
      assert(asked.includes(`/acme/Yi-34B-mirror/resolve/main/${f}`), `${f} not asked: ${asked}`);
    }
    await gridEquals(page, matrixJson("--model", cfg, "--gpu", "h100-sxm"));
    const scenario = await page.locator("#scenario").textContent();
    assert(scenario.startsWith("acme/Yi-34B-mirror on "), scenario);
    const ckpt = await page.locator("#checkpoint").getAttribute("data-bytes");
    assert(Number(ckpt) === total, `checkpoint ${ckpt}`);
    const refusals = [
      ["acme/gated-34b", "`acme/gated-34b` is a gated or private repo on the Hub (https://huggingface.co) and no token was sent", "the page sends no token"],
      ["acme/nothing-here", "`acme/nothing-here` is no model preset, no file here, and no repo on the Hub (https://huggingface.co)", "check the repo id's spelling"],
      ["acme/private-model", "the Hub (https://huggingface.co) refused `acme/private-model` (HTTP 401) without saying why", "the page sends no token"],
      ["not a repo", "invalid value `not a repo` for `hub-repo`", "ORG/NAME"],
    ];
    for (const [repo, error, hint] of refusals) {
      await page.fill("#hub-repo", repo);
      await page.click("#hub-fetch");
      await page.waitForSelector(`#error-hub-repo:has-text("${error.slice(0, 40)}")`, { timeout: 10000 });
      const text = await page.locator("#error-hub-repo").textContent();
      assert(text.includes(error) && text.includes(hint), text);
      // The failed fetch leaves no earlier repo driving the grid.
      assert(await page.locator("#checkpoint").count() === 0, "the fetched repo was dropped");
    }
    await page.unroute("https://huggingface.co/**");
    await page.fill("#hub-repo", "");
    await page.selectOption("#gpu", "");
  });

  await check("the plan panel answers the solver and ranking questions", async () => {
    await page.setInputFiles("#model-config", []);
    await page.goto(base);
    await page.waitForSelector("#matrix td.cell");
    await page.fill("#plan-context", "32k");
    await page.fill("#plan-concurrency", "16");
    await page.waitForSelector("#plan-answers", { timeout: 10000 });
    const solved = JSON.parse(execFileSync(cli, ["solve", "--for", "max-concurrency", "--context", "32k", "--format", "json"], { encoding: "utf8" }));
    const valid = await page.locator("#plan-answers").getAttribute("data-valid-max-concurrency");
    assert(valid === String(solved.valid_max_concurrency), `page ${valid}, CLI ${solved.valid_max_concurrency}`);
    // The ranking sweeps hundreds of configurations: only when asked.
    assert(await page.locator("#ranking").count() === 0, "no ranking before the button");
    await page.click("#rank-gpus");
    await page.waitForSelector("#ranking tr[data-gpu]", { timeout: 20000 });
    assert(await page.locator("#ranking tr[data-gpu]").count() > 0, "a ranking");
    await page.fill("#plan-concurrency", "0");
    await page.waitForSelector("#error-plan", { timeout: 10000 });
    await page.fill("#plan-concurrency", "");
    await page.fill("#plan-context", "");
  });

  await check("no uncaught errors on the page", async () => {
    assert(errors.length === 0, errors.join("; "));
    assert(await page.locator("#fatal").isHidden(), "the panic banner stays hidden");
  });
} finally {
  await browser.close();
  server.close();
}

console.log(`web e2e: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
