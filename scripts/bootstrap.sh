#!/usr/bin/env bash
# Installs what sors needs on a fresh Debian machine: system packages (ffmpeg, espeak-ng,
# fonts, Redis and PostgreSQL for the multi-process tests, Chromium for the console tests)
# and a Python venv in .venv.
# Idempotent: quick when everything is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

# chromium + chromium-driver: the console's browser tests (Selenium drives these binaries).
# curl + jq: the README's tour (and its test) use them.
PKGS=(ffmpeg espeak-ng fonts-dejavu-core redis-server postgresql chromium chromium-driver curl jq)
missing=()
for p in "${PKGS[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "==> installing Debian packages: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "==> creating .venv"
  "$PY" -m venv .venv
fi
stamp=.venv/.sors-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  echo "==> installing Python packages"
  .venv/bin/python -m pip install -q --upgrade pip
  # PYTHONWARNINGS: setuptools' notices about editable installs (for whoever packages sors,
  # not for a user) would be the only warnings of a fresh run.
  PYTHONWARNINGS=ignore .venv/bin/python -m pip install -q -e ".[dev]"
  touch "$stamp"
fi
