#!/usr/bin/env bash
# Installs what the tests need and runs all of them. README's test command;
# .ci/run calls it. Needs only a Rust toolchain (rustup's cargo, rustfmt, clippy).
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

echo "== cargo fmt --check" >&2
cargo fmt --all -- --check
echo "== cargo clippy --all-targets -D warnings" >&2
cargo clippy --workspace --all-targets --locked -- -D warnings
echo "== cargo test" >&2
log=$(mktemp)
trap 'rm -f "$log"' EXIT
cargo test --workspace --locked 2>&1 | tee "$log"
# One closing line for the whole run, summed over every test binary.
awk '/^test result:/ { p += $4; f += $6 } END { printf "tests: %d passed, %d failed\n", p, f }' "$log"
