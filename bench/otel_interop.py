"""Interop check (manual, not in CI): our OTLP export read back by a real Arize Phoenix.

Installs Arize Phoenix into its own virtual environment (its dependencies would clash with the
app's pins), serves it on 127.0.0.1 with a throw-away working folder, makes 3 scripted demo runs,
sends them with the ``phoenix`` preset, then reads the spans back through Phoenix's REST API
(``GET /v1/projects/default/spans``) and compares, per run: span count, tool names, span kinds
and the root's token attributes. Prints a table and one ``BENCH_OTEL_INTEROP {...}`` JSON line;
exit 1 when Phoenix did not get what we sent.

    python bench/otel_interop.py [--venv /tmp/agent-workbench-phoenix] [--content] [--keep]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from agent_core.otel.export import record_to_trace  # noqa: E402
from agent_core.otel.send import preset_target, send_traces  # noqa: E402
from agent_core.records.files import load_record  # noqa: E402
from agent_core.run import demo  # noqa: E402
from agent_core.settings import Settings  # noqa: E402

SCENARIOS = ("tour", "retry_fallback", "duplicate")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def ensure_phoenix(venv: Path) -> Path:
    """The ``phoenix`` command in ``venv``, installing arize-phoenix there first if needed."""
    command = venv / "bin" / "phoenix"
    if command.exists():
        return command
    print(f"installing arize-phoenix into {venv} (a few minutes) …", flush=True)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "arize-phoenix"], check=True)
    return command


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as response:  # noqa: S310 - loopback
        return json.loads(response.read())


def phoenix_spans(base: str, trace_id: str) -> list[dict[str, Any]]:
    spans: list[dict[str, Any]] = []
    cursor = ""
    while True:
        page = _get(
            f"{base}/v1/projects/default/spans?limit=1000&trace_id={trace_id}" + (f"&cursor={cursor}" if cursor else "")
        )
        spans += page.get("data") or []
        cursor = page.get("next_cursor") or ""
        if not cursor:
            return spans


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--venv", default="/tmp/agent-workbench-phoenix", help="where Phoenix is installed")
    parser.add_argument("--content", action="store_true", help="send content too")
    parser.add_argument("--keep", action="store_true", help="leave Phoenix running (prints its URL)")
    args = parser.parse_args()

    phoenix = ensure_phoenix(Path(args.venv))
    version = subprocess.run(
        [str(Path(args.venv) / "bin" / "python"), "-c", "import phoenix; print(phoenix.__version__)"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    work = Path(tempfile.mkdtemp(prefix="otel-interop-"))
    port, grpc = _free_port(), _free_port()
    env = {
        **os.environ,
        "PHOENIX_WORKING_DIR": str(work / "phoenix"),
        "PHOENIX_HOST": "127.0.0.1",
        "PHOENIX_PORT": str(port),
        "PHOENIX_GRPC_PORT": str(grpc),
        "PHOENIX_TELEMETRY_ENABLED": "false",
    }
    log = (work / "phoenix.log").open("w")
    t0 = time.perf_counter()
    proc = subprocess.Popen([str(phoenix), "serve"], env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                _get(f"{base}/v1/projects")
                break
            except Exception:
                if proc.poll() is not None or time.monotonic() > deadline:
                    print((work / "phoenix.log").read_text()[-3000:])
                    print("Phoenix did not start")
                    return 1
                time.sleep(0.5)
        started_s = time.perf_counter() - t0

        settings = Settings(data_dir=work / "agent_data", retry_delays=(0.0, 0.0))
        (settings.data_dir / "runs").mkdir(parents=True)
        records = []
        for scenario in SCENARIOS:
            run = demo.prepare(scenario, settings)
            for event in run.events():
                last = event
            records.append(load_record(last.path))  # type: ignore[attr-defined]
        target = preset_target("phoenix", endpoint=base)
        traces = [record_to_trace(r, content=args.content) for r in records]
        sent = send_traces(traces, target)

        rows, ok = [], True
        for record, trace in zip(records, traces):
            deadline = time.monotonic() + 60  # Phoenix inserts spans in batches, later under load
            got = phoenix_spans(base, trace.trace_id.hex())
            while len(got) < len(trace.spans) and time.monotonic() < deadline:
                time.sleep(1)
                got = phoenix_spans(base, trace.trace_id.hex())
            ours_tools = sorted(
                s.attributes["gen_ai.tool.name"] for s in trace.spans if "gen_ai.tool.name" in s.attributes
            )
            their_tools = sorted(
                s["attributes"].get("tool.name") or s["attributes"].get("gen_ai.tool.name")
                for s in got
                if s.get("span_kind") == "TOOL"
            )
            kinds: dict[str, int] = {}
            for s in got:
                kinds[s.get("span_kind", "?")] = kinds.get(s.get("span_kind", "?"), 0) + 1
            match = len(got) == len(trace.spans) and ours_tools == their_tools
            ok &= match
            rows.append(
                {
                    "run": record["goal"][:40],
                    "sent": len(trace.spans),
                    "phoenix": len(got),
                    "tools_sent": ours_tools,
                    "tools_phoenix": their_tools,
                    "kinds": kinds,
                    "match": match,
                }
            )
        for row in rows:
            print(
                f"{row['run']:<42} sent {row['sent']:>3}  phoenix {row['phoenix']:>3}  kinds {row['kinds']}  "
                f"tools {'=' if row['match'] else '≠'} {row['tools_phoenix']}"
            )
        print(
            "BENCH_OTEL_INTEROP "
            + json.dumps(
                {
                    "phoenix": version,
                    "runs": len(records),
                    "spans_sent": sent,
                    "spans_read": sum(r["phoenix"] for r in rows),
                    "match": ok,
                    "phoenix_start_s": round(started_s, 1),
                }
            )
        )
        if args.keep:
            print(f"Phoenix is at {base} (pid {proc.pid})")
        return 0 if ok else 1
    finally:
        if not args.keep:
            proc.terminate()
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
