#!/usr/bin/env bash
# Writes the output of the README's calibration command between the
# <!-- calibrate-report --> markers of README.md (the test
# tests/tests/suite/calibration.rs checks the README's rows are the report's).
# Usage: bash scripts/readme-calibration.sh [path to decodecalc binary]
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-target/release/decodecalc}"
report=$(mktemp)
trap 'rm -f "$report"' EXIT
"$bin" calibrate --measured public-decode-speed \
  --measured rtx3090-nemotron-nano-12b-v2-awq4-vllm0.32 \
  --held-out aiconfigurator-silicon-vllm --held-out aiconfigurator-silicon-vllm-ep \
  --held-out a100-vllm-v1 --format markdown >"$report"
python3 - "$report" <<'PY'
import sys
report = open(sys.argv[1]).read().strip()
s = open("README.md").read()
a = s.index("<!-- calibrate-report -->") + len("<!-- calibrate-report -->")
b = s.index("<!-- /calibrate-report -->")
open("README.md", "w").write(s[:a] + "\n" + report + "\n" + s[b:])
PY
