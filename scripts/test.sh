#!/usr/bin/env bash
# Every test: installs what is missing, then runs the whole suite against real PostgreSQL
# (embedded by default), real SMTP (aiosmtpd) and real Redis on loopback.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
export PATH="$PWD/.venv/bin:$PATH"
set +e
# Two workers (pytest-xdist), each with its own database: the suite is mostly waiting (on
# subprocesses, servers, the browser), so two halve its time on a 2-core machine.
.venv/bin/python -m pytest -q -p no:cacheprovider -n "${SORS_TEST_WORKERS:-2}" "$@"
rc=$?
set -e
# pytest exits 5 when nothing was collected: that is a failure here, not a pass.
exit $rc
