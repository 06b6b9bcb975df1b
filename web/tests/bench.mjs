// Browser benchmark: how long the page takes to recompute the reference
// matrix (resolve, capacity, 45 cells with timing) inside headless Chromium.
//   bash web/build.sh && node web/tests/bench.mjs
import { chromium } from "playwright-core";
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { join, extname, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const dist = join(dirname(fileURLToPath(import.meta.url)), "..", "dist");
const types = { ".html": "text/html", ".js": "text/javascript", ".wasm": "application/wasm", ".css": "text/css" };
const server = createServer(async (req, res) => {
  const path = new URL(req.url, "http://127.0.0.1").pathname;
  const file = path === "/" ? "index.html" : path;
  let body;
  try { body = await readFile(join(dist, file)); } catch { res.writeHead(404).end(); return; }
  res.writeHead(200, { "content-type": types[extname(file)] || "application/octet-stream" }).end(body);
});
await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
const page = await browser.newPage();
await page.goto(`http://127.0.0.1:${server.address().port}/`);
await page.waitForSelector("#matrix td.cell");
const runs = await page.evaluate(async () => {
  const m = await import("./decodecalc_web.js");
  const out = [];
  for (let i = 0; i < 5; i++) out.push(m.bench_recompute(200));
  return out;
});
runs.sort((a, b) => a - b);
console.log(`browser recompute of the reference page: median ${runs[2].toFixed(3)} ms (runs: ${runs.map((x) => x.toFixed(3)).join(", ")})`);
await browser.close();
server.close();
