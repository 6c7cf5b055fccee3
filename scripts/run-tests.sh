#!/usr/bin/env bash
# Install what the tests need (Python packages, the local model, Ray, Debian's chromium for the
# browser tests), check the code (ruff, mypy) and the docs (mkdocs --strict: links and anchors),
# and run the whole suite (the import-direction test among it). Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
# Debian packages: chromium (browser tests) and postgresql (the team-store tests start their own
# throwaway server with initdb/pg_ctl, which Debian keeps in /usr/lib/postgresql/<major>/bin).
APT=()
command -v chromium >/dev/null 2>&1 || APT+=(chromium)
command -v pg_ctl >/dev/null 2>&1 || ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1 || APT+=(postgresql)
if [ "${#APT[@]}" -gt 0 ]; then
  SUDO=""; [ "$(id -u)" = "0" ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${APT[@]}" >/dev/null
fi
"$PYTHON" -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt -r requirements-local.txt \
  -r requirements-scale.txt
if [ "${LINT:-1}" = "1" ]; then  # LINT=0 skips the code-health checks (pyproject.toml)
  "$PYTHON" -m ruff check .
  "$PYTHON" -m ruff format --check .
  "$PYTHON" -m mypy agent_core
  SITE="$(mktemp -d)"
  "$PYTHON" -m mkdocs build --strict --quiet --site-dir "$SITE"
  rm -rf "$SITE"
fi
exec "$PYTHON" -m pytest "$@"
