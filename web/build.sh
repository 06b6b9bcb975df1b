#!/usr/bin/env bash
# Builds the site into web/dist/ (index.html, style.css, JS glue, .wasm).
# Downloads nothing but from the package registries: the rustup wasm32 target
# and wasm-bindgen-cli pinned to the wasm-bindgen version in Cargo.lock
# (built from crates.io the first time, about 6 minutes on 2 cores).
set -euo pipefail
cd "$(dirname "$0")/.."

wbg=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
if command -v rustup >/dev/null 2>&1 && ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  echo "== rustup target add wasm32-unknown-unknown" >&2
  rustup target add wasm32-unknown-unknown >&2
fi
if ! wasm-bindgen --version 2>/dev/null | grep -qF " $wbg"; then
  echo "== cargo install wasm-bindgen-cli --version $wbg" >&2
  cargo install wasm-bindgen-cli --version "$wbg" >&2
fi

echo "== cargo build --profile wasm --target wasm32-unknown-unknown -p decodecalc-web" >&2
cargo build --profile wasm --target wasm32-unknown-unknown -p decodecalc-web --locked >&2
rm -rf web/dist
wasm-bindgen --target web --no-typescript --out-dir web/dist \
  target/wasm32-unknown-unknown/wasm/decodecalc_web.wasm
cp web/index.html web/style.css web/dist/
raw=$(wc -c < web/dist/decodecalc_web_bg.wasm)
gz=$(gzip -9 -c web/dist/decodecalc_web_bg.wasm | wc -c)
echo "web/dist/decodecalc_web_bg.wasm: $raw bytes raw, $gz bytes gzip -9" >&2
