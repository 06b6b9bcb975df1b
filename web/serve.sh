#!/usr/bin/env bash
# Serves web/dist on http://127.0.0.1:${PORT:-8080}/ (build it first: web/build.sh).
set -euo pipefail
cd "$(dirname "$0")/dist"
exec python3 -m http.server "${PORT:-8080}" --bind 127.0.0.1
