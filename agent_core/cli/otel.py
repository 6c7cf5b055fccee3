"""The OTLP parts of ``python -m agent_core export`` and ``import``.

``export RUN_ID... --otlp URL [--header K=V]... [--content]``, ``--otlp-json FILE`` and
``--since DATE``; ``import FILE.jsonl``. Exit codes: 0 done, 1 the export failed (unreachable,
refused), 2 bad input.
"""

from __future__ import annotations

import argparse
import os
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from agent_core.cli.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from agent_core.errors import RecordError
from agent_core.settings import Settings


def add_export_arguments(parser: argparse.ArgumentParser) -> None:
    """The OTLP options of the ``export`` subcommand (``run_ids`` is added here if missing)."""
    if not any(getattr(a, "dest", "") == "run_ids" for a in parser._actions):
        parser.add_argument("run_ids", nargs="*", metavar="RUN_ID", help="runs to export (an id or a unique prefix)")
    group = parser.add_argument_group("OpenTelemetry")
    group.add_argument(
        "--otlp", metavar="URL", help="send as OTLP/HTTP protobuf to this endpoint (base URL or …/v1/traces)"
    )
    group.add_argument(
        "--preset",
        choices=["generic", "phoenix", "langfuse", "mlflow"],
        default=None,
        help="endpoint path and auth of a tracing tool (with --otlp or its default URL); keys from "
        "PHOENIX_API_KEY, LANGFUSE_PUBLIC_KEY + LANGFUSE_SECRET_KEY, MLFLOW_EXPERIMENT_ID",
    )
    group.add_argument(
        "--header",
        action="append",
        default=[],
        metavar="K=V",
        help="an HTTP header for --otlp (repeatable); OTEL_EXPORTER_OTLP_HEADERS is read too",
    )
    group.add_argument(
        "--content", action="store_true", help="include goal, answer, tool arguments and results (masked, size-capped)"
    )
    group.add_argument(
        "--otlp-json", metavar="FILE", help="write OTLP JSON lines (the file-exporter format); - for stdout"
    )
    group.add_argument(
        "--since", metavar="DATE", help="export every run started on or after DATE (YYYY-MM-DD or ISO time)"
    )


def wants_otlp(args: argparse.Namespace) -> bool:
    return bool(getattr(args, "otlp", None) or getattr(args, "otlp_json", None) or getattr(args, "preset", None))


def _since(text: str) -> datetime:
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"--since: not a date: {text!r} (use YYYY-MM-DD)") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def select_records(runs_dir: Path, run_ids: list[str], since: str | None, *, store: Any = None) -> list[dict[str, Any]]:
    """The records named by id (or unique prefix) and/or started since a date, oldest first.

    Read through :class:`agent_core.records.store.RunStore`, the one reading path for many runs (or
    ``store``: the team store's :class:`agent_core.pgstore.reading.TeamRunStore`).
    """
    import pandas as pd

    from agent_core.records.store import RunStore

    if store is None:
        store = RunStore(runs_dir, persist=False)
    store.refresh()
    table = store.runs()
    known = [str(v) for v in table["run_id"]]
    chosen: list[str] = []
    for run_id in run_ids:
        matches = [run_id] if run_id in known else [k for k in known if run_id and k.startswith(run_id)]
        if not matches:
            raise ValueError(f"no saved run {run_id!r} in {runs_dir}")
        if len(matches) > 1:
            raise ValueError(f"{run_id!r} matches {len(matches)} runs; give more of the id")
        chosen.append(matches[0])
    if since is not None:
        start = pd.Timestamp(_since(since))
        began = pd.to_datetime(table["started_at"], utc=True, errors="coerce")
        chosen += [str(v) for v in table.loc[began >= start, "run_id"]]
    records: dict[str, dict[str, Any]] = {}
    for run_id in chosen:
        if run_id in records:
            continue
        try:
            record = store.load(run_id)
        except RecordError as exc:
            raise ValueError(str(exc)) from None
        record.pop("status_shown", None)
        records[run_id] = record
    return sorted(records.values(), key=lambda r: str(r.get("started_at") or ""))


def cmd_export_otlp(args: argparse.Namespace, settings: Settings) -> int:
    from agent_core.otel.encode import to_otlp_json_lines
    from agent_core.otel.export import record_to_trace
    from agent_core.otel.send import ExportError, Target, parse_headers, preset_target, send_traces, target_from_env

    try:
        if not args.run_ids and not args.since:
            raise ValueError("name at least one RUN_ID, or --since DATE")
        headers = parse_headers(args.header)
        target: Target | None = None
        if args.preset:
            env = os.environ
            target = (
                preset_target(
                    args.preset,
                    endpoint=args.otlp,
                    headers=headers,
                    api_key=env.get("PHOENIX_API_KEY"),
                    public_key=env.get("LANGFUSE_PUBLIC_KEY"),
                    secret_key=env.get("LANGFUSE_SECRET_KEY"),
                    experiment_id=env.get("MLFLOW_EXPERIMENT_ID"),
                )
                if args.preset != "generic"
                else preset_target("generic", endpoint=args.otlp, headers=headers)
            )
        elif args.otlp:
            from agent_core.otel.send import traces_url

            from_env = target_from_env() or Target("")
            target = Target(traces_url(args.otlp), {**from_env.headers, **headers})
        team = None
        if getattr(settings, "store_url", None):
            from agent_core.pgstore.reading import reading_store

            team = reading_store(settings, persist=False)
        records = select_records(settings.runs_dir, list(args.run_ids), args.since, store=team)
    except ValueError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return EXIT_USAGE
    if not records:
        sys.stderr.write("no runs to export\n")
        return EXIT_OK
    if args.otlp_json:
        text = to_otlp_json_lines(records, content=args.content)
        if args.otlp_json == "-":
            sys.stdout.write(text)
        else:
            try:
                Path(args.otlp_json).write_text(text, encoding="utf-8")
            except OSError as exc:
                sys.stderr.write(f"error: cannot write {args.otlp_json}: {exc.strerror or exc}\n")
                return EXIT_FAILED
            sys.stderr.write(f"wrote {len(records)} run(s) to {args.otlp_json}\n")
    if target is not None:
        try:
            spans = send_traces([record_to_trace(r, content=args.content) for r in records], target)
        except ExportError as exc:
            sys.stderr.write(f"error: {exc}\n")
            return EXIT_FAILED
        sys.stderr.write(f"sent {len(records)} run(s), {spans} spans, to {target.endpoint}\n")
    return EXIT_OK


def looks_like_otlp(path: Path) -> bool:
    """A file for the OTLP importer: a .jsonl/.otlp name or ``resourceSpans`` near its start."""
    if path.suffix.lower() in (".jsonl", ".otlp"):
        return True
    try:
        with path.open("rb") as handle:
            return b'"resourceSpans"' in handle.read(4096)
    except OSError:
        return False


def cmd_import_otlp(path: Path, settings: Settings) -> int:
    from agent_core.otel.importer import ImportError_, import_file

    try:
        results = import_file(path, settings.runs_dir)
    except ImportError_ as exc:
        sys.stderr.write(f"error: {exc}\n")
        return EXIT_USAGE
    except OSError as exc:
        sys.stderr.write(f"error: cannot save the imported run: {exc}\n")
        return EXIT_FAILED
    for run_id, outcome in results:
        sys.stdout.write(f"{outcome}: {run_id}\n")
    return EXIT_OK
