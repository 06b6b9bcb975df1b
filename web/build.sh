#!/usr/bin/env bash
# Builds the site into web/dist/ (index.html, style.css, JS glue, .wasm).
# Downloads nothing but from the package registries: the rustup wasm32 target
# and wasm-bindgen-cli pinned to the wasm-bindgen version in Cargo.lock
# (built from crates.io the first time, unoptimized: under a minute on 2
# cores against about 6 minutes for a release build, and it writes the same
# bytes, in under a second for this module), and
# npm's binaryen for wasm-opt.
set -euo pipefail
cd "$(dirname "$0")/.."

wbg=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
if command -v rustup >/dev/null 2>&1 && ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  echo "== rustup target add wasm32-unknown-unknown" >&2
  rustup target add wasm32-unknown-unknown >&2
fi
if ! wasm-bindgen --version 2>/dev/null | grep -qF " $wbg"; then
  echo "== cargo install wasm-bindgen-cli --version $wbg" >&2
  # --force: a stale install record (the binary gone) would otherwise skip it.
  cargo install wasm-bindgen-cli --version "$wbg" --debug --force >&2
fi

# Panic locations name their source files; a dependency's is under this
# machine's cargo registry (/root/.cargo/registry/src/index.crates.io-<hash>/
# yew-0.23.0/src/...). Remapped to the crate's own path (yew-0.23.0/src/...),
# the module is the same on any machine and 0.3 KB smaller gzipped.
remap=""
for dir in "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/; do
  [ -d "$dir" ] && remap="$remap --remap-path-prefix=$dir="
done
echo "== cargo build --profile wasm --target wasm32-unknown-unknown -p decodecalc-web" >&2
RUSTFLAGS="${RUSTFLAGS:-}$remap" \
  cargo build --profile wasm --target wasm32-unknown-unknown -p decodecalc-web --locked >&2
rm -rf web/dist
wasm-bindgen --target web --no-typescript --out-dir web/dist \
  "${CARGO_TARGET_DIR:-target}"/wasm32-unknown-unknown/wasm/decodecalc_web.wasm
# binaryen's wasm-opt (an npm package: web/package.json) shrinks the module
# by about a fifth; the features are those Rust's wasm32 target emits.
if [ ! -x web/node_modules/.bin/wasm-opt ]; then
  echo "== npm ci (playwright-core, binaryen)" >&2
  (cd web && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund >&2)
fi
# --converge repeats the passes while the module still shrinks (1.5 KB gzip);
# the producers and target-features sections are for tools, not browsers.
echo "== wasm-opt -Oz --converge" >&2
web/node_modules/.bin/wasm-opt -Oz --converge --strip-producers --strip-target-features --enable-bulk-memory --enable-sign-ext \
  --enable-nontrapping-float-to-int --enable-mutable-globals --enable-multivalue \
  --enable-reference-types web/dist/decodecalc_web_bg.wasm -o web/dist/decodecalc_web_bg.wasm
cp web/index.html web/style.css web/dist/
raw=$(wc -c < web/dist/decodecalc_web_bg.wasm)
gz=$(gzip -9 -c web/dist/decodecalc_web_bg.wasm | wc -c)
echo "web/dist/decodecalc_web_bg.wasm: $raw bytes raw, $gz bytes gzip -9" >&2
# The page's budget (issue 28), held on the built module itself: every
# build fails past it, not only the test run.
if [ "$gz" -gt 400000 ]; then
  echo "error: web/dist/decodecalc_web_bg.wasm is $gz bytes gzip -9, over the page's budget of 400,000" >&2
  echo "hint: keep what only the CLI or the fit needs out of the page (core features, data it does not embed)" >&2
  exit 1
fi
