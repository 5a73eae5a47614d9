#!/usr/bin/env bash
# The demo: embedded PostgreSQL, simulated platforms, a funded account, printed API key.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
exec .venv/bin/sors demo "$@"
