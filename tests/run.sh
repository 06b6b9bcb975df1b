#!/usr/bin/env bash
# Installs what the tests need and runs all of them. README's test command;
# .ci/run calls it. Needs a Rust toolchain (rustup), Node.js and, for the web
# test, Debian's chromium (installed here when run as root). Everything else
# comes from the package registries: the wasm32 target, wasm-bindgen-cli,
# playwright-core.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v cargo >/dev/null 2>&1; then
  echo "error: cargo not found" >&2
  echo "hint: install Rust with rustup (https://rustup.rs), then run this again" >&2
  exit 2
fi
# rustfmt and clippy come with rustup's default profile; add them if missing.
if command -v rustup >/dev/null 2>&1; then
  rustup component add rustfmt clippy >/dev/null 2>&1 || true
fi

# cli/tests/hostile.rs runs the binary under prlimit (util-linux).
if ! command -v prlimit >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq util-linux >&2
  else
    echo "error: prlimit not found" >&2
    echo "hint: install util-linux (apt-get install util-linux), then run this again" >&2
    exit 2
  fi
fi

# Debian's chromium for the web test, installed while the Rust builds run
# (apt is network and disk, the builds are CPU): about a minute and a half
# of a fresh machine's run hidden. Waited for before the web test.
chromium_log=$(mktemp)
trap 'rm -f "$chromium_log"' EXIT
chromium_pid=""
if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "== apt-get install chromium (in the background)" >&2
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >"$chromium_log" 2>&1 &
  chromium_pid=$!
fi

echo "== cargo fmt --check" >&2
cargo fmt --all -- --check
echo "== cargo clippy --all-targets -D warnings" >&2
cargo clippy --workspace --all-targets --locked -- -D warnings
echo "== cargo test" >&2
log=$(mktemp)
trap 'rm -f "$chromium_log" "$log"' EXIT
# The bounded fuzzing in tests/tests/suite/fuzz.rs runs 10,000 inputs per target here.
DECODECALC_FUZZ_CASES="${DECODECALC_FUZZ_CASES:-10000}" cargo test --workspace --locked 2>&1 | tee "$log"

# The web page: build it (wasm32 target and the pinned wasm-bindgen-cli are
# installed by web/build.sh), then drive it in headless Chromium.
echo "== web/build.sh" >&2
build_log=$(mktemp)
trap 'rm -f "$chromium_log" "$log" "$build_log"' EXIT
status=0
bash web/build.sh 2>"$build_log" || status=$?
cat "$build_log" >&2
[ "$status" = 0 ] || exit "$status"
# README states the module's size as web/build.sh prints it. The bytes
# depend on the toolchain's install too: with rustup's rust-src component,
# std's file paths in panic locations are local ones, which moves the size
# by under 0.2%; so the README's figures must be within 0.5% of these.
size=$(sed -n 's/.*: \([0-9]*\) bytes raw, \([0-9]*\) bytes gzip -9$/\1 \2/p' "$build_log")
stated=$(tr '\n' ' ' < README.md | sed -n 's/.* \([0-9,]*\) bytes raw, \([0-9,]*\) bytes gzip -9.*/\1 \2/p' | tr -d ,)
if [ -z "$size" ] || [ -z "$stated" ] || ! awk -v a="$size" -v b="$stated" 'BEGIN {
    split(a, x, " "); split(b, y, " ");
    for (i = 1; i <= 2; i++) { d = x[i] - y[i]; if (d < 0) d = -d; if (d > 0.005 * x[i]) exit 1 }
  }'; then
  echo "error: README.md states the module as \"${stated:-nothing}\" (raw, gzip); web/build.sh printed \"$size\"" >&2
  echo "hint: write \"N,NNN bytes raw, N,NNN bytes gzip -9\" with web/build.sh's figures into README.md's browser section" >&2
  exit 1
fi
# The page's budget (400,000 bytes gzip -9 of the built module) is
# web/build.sh's own check: the build above fails past it.
if [ -n "$chromium_pid" ]; then
  echo "== waiting for apt-get install chromium" >&2
  if ! wait "$chromium_pid"; then
    cat "$chromium_log" >&2
    echo "error: apt-get install chromium failed (its output is above)" >&2
    echo "hint: install Debian's chromium package (apt-get install chromium), then run this again" >&2
    exit 2
  fi
fi
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "== apt-get install chromium" >&2
    apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >&2
  else
    echo "error: chromium not found and cannot be installed without root" >&2
    echo "hint: install Debian's chromium package (apt-get install chromium), then run this again" >&2
    exit 2
  fi
fi
if ! command -v node >/dev/null 2>&1; then
  echo "error: node not found" >&2
  echo "hint: install Node.js 20 or later (apt-get install nodejs npm)" >&2
  exit 2
fi
echo "== npm ci (playwright-core, no browser download)" >&2
(cd web && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund >&2)
# The CLI the page is checked against: the test build's binary (cargo test
# built it for cli/tests; core is optimized in test builds, Cargo.toml), so
# no release build of the workspace is needed here.
echo "== web end-to-end test" >&2
DECODECALC_BIN="${DECODECALC_BIN:-${CARGO_TARGET_DIR:-target}/debug/decodecalc}" \
  node web/tests/e2e.mjs 2>&1 | tee -a "$log"

# One closing line for the whole run, summed over every test binary and the web test.
awk '/^test result:/ { p += $4; f += $6 }
     /^web e2e:/ { p += $3; f += $5 }
     END { printf "tests: %d passed, %d failed\n", p, f }' "$log"
