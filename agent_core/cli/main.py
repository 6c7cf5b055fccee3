"""Command line: ``python -m agent_core run "GOAL"`` and ``python -m agent_core runs``.

Output is for people (and scripts with ``--json``); progress goes to stderr so stdout stays the
answer or the record.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NoReturn, TextIO

from agent_core.cli import approve as cli_approve
from agent_core.cli import explain as cli_explain
from agent_core.cli.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, usage_error
from agent_core.cli.progress import print_progress
from agent_core.cli.store import with_store_note
from agent_core.errors import ProviderUnavailable
from agent_core.providers import PROVIDER_IDS, model_wait
from agent_core.run.events import (
    RunFinished,
)
from agent_core.settings import ANSWER_CHECKS, Settings


def build_parser() -> argparse.ArgumentParser:
    """The whole command line (``scripts/cli_reference.py`` writes docs/cli.md from it)."""
    parser = argparse.ArgumentParser(prog="python -m agent_core", description="Agent Workbench engine")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run one goal and save its record")
    run.add_argument("goal", help="what the agent should do")
    run.add_argument("--provider", choices=PROVIDER_IDS, help="default: local if installed, else offline")
    run.add_argument("--model", help="model name for the provider")
    run.add_argument("--max-steps", type=int, help="model turns before giving up (MAX_STEPS)")
    run.add_argument("--max-context-blocks", type=int, help="recent blocks sent each step (MAX_CONTEXT_BLOCKS)")
    run.add_argument("--base-url", help="API base URL for this run")
    run.add_argument(
        "--tools",
        help="comma-separated tool names to enable (default: all enabled; MCP tools are server__tool, "
        "see `tools list`)",
    )
    run.add_argument(
        "--answer-check",
        choices=ANSWER_CHECKS,
        help="check the answer's figures against the tool results: off, flag (warn), retry (also send the model "
        "a corrective turn); default ANSWER_CHECK, else retry on local and flag elsewhere",
    )
    cli_approve.add_argument(run, interactive=True)
    run.add_argument("--json", action="store_true", help="print the run record as JSON")
    run.add_argument("--quiet", "-q", action="store_true", help="no progress on stderr")
    runs = sub.add_parser("runs", help="list saved runs, newest first")
    runs.add_argument("--limit", type=int, default=50, help="how many to show (default 50)")
    runs.add_argument("--json", action="store_true", help="print the list as JSON lines")
    sub.add_parser("schema", help="print the run record's JSON Schema (docs/run.schema.json)")
    cli_explain.add_commands(sub)
    from agent_core.cli import compare as cli_compare

    cli_compare.add_compare_parser(sub)
    cli_compare.add_replay_parser(sub)
    cli_compare.add_arena_parser(sub)
    from agent_core.cli.evals import add_parser as add_eval_parser

    add_eval_parser(sub)
    from agent_core.cli.otel import add_export_arguments

    export = sub.add_parser(
        "export", help="export saved runs: a web page (--html) or OpenTelemetry (--otlp, --otlp-json)"
    )
    add_export_arguments(export)
    cli_explain.add_html_export_arguments(export)
    imp = sub.add_parser(
        "import", help="import runs from a file: an exported web page, a record's JSON, or OTLP JSON lines"
    )
    imp.add_argument("file", help="the file to import (.html, .json, .jsonl)")
    from agent_core.cli.store import add_sync_parser

    add_sync_parser(sub)
    from agent_core.cli.goals import add_parsers as add_goals_parsers

    add_goals_parsers(sub)
    from agent_core.cli.tools import add_parser as add_tools_parser

    add_tools_parser(sub)
    from agent_core.cli.workspace import add_parser as add_workspace_parser

    add_workspace_parser(sub)
    return parser


def cmd_run(args: argparse.Namespace, settings: Settings) -> int:
    from agent_core.run.prepare import prepare_run

    try:
        prepared = prepare_run(
            args.goal,
            args.provider,
            model=args.model,
            base_url=args.base_url,
            settings=settings,
            overrides={
                "max_steps": args.max_steps,
                "max_context_blocks": args.max_context_blocks,
                "answer_check": args.answer_check,
            },
            tools=args.tools.split(",") if args.tools else None,
            approver=cli_approve.approver_for(args.approve),
        )
    except (ProviderUnavailable, ValueError) as exc:
        return usage_error(exc)
    cancel = threading.Event()
    finished: RunFinished | None = None
    over = threading.Event()
    if not args.quiet:  # a wait for a stopped run on the shared local model: one line
        model_wait.watch(prepared.provider.model_wait, over, sys.stderr.write)
    try:
        for event in prepared.events(cancel):
            if not args.quiet:
                print_progress(event, sys.stderr)
            if isinstance(event, RunFinished):
                finished = event
    except KeyboardInterrupt:
        cancel.set()
        sys.stderr.write("interrupted\n")
        return 130
    finally:
        over.set()
    assert finished is not None
    from agent_core.records.files import load_record
    from agent_core.records.outcome import outcome, word

    try:
        record = load_record(finished.path)
    except Exception:
        record = finished.as_dict()
    if args.json:
        sys.stdout.write(json.dumps(record, ensure_ascii=False, indent=2) + "\n")
    elif finished.status == "completed":
        sys.stdout.write((finished.answer or "") + "\n")
    if finished.status != "completed":
        message = finished.error["message"] if finished.error else finished.status
        sys.stderr.write(f"run {finished.status}: {message}\n")
    kind, why = outcome(record)  # the Run page's and History's word for it
    sys.stderr.write(f"outcome: {word(kind)}" + (f" — {why}" if why else "") + "\n")
    _grounding_warnings(finished.grounding, sys.stderr)
    sys.stderr.write(f"record: {finished.path}\n")
    if prepared.settings.store_url:
        from agent_core.pgstore.sink import team_note

        note = team_note(prepared.settings, finished.run_id)
        sys.stderr.write(f"note: {note}\n" if note else f"team store: {prepared.settings.store_label}\n")
    from agent_core.otel import auto as otel_auto

    if otel_auto.enabled():  # AGENT_OTEL_EXPORT=auto sends from a thread: give it a moment before exit
        otel_auto.report_at_exit(sys.stderr)
    return EXIT_OK if finished.status == "completed" else EXIT_FAILED


def _grounding_warnings(grounding: Mapping[str, Any] | None, out: TextIO) -> None:
    """One warning line per figure of the answer that no tool result (nor the goal) supports."""
    from agent_core.checks.words import unsupported, warning

    missing = unsupported(grounding)
    for claim in missing:
        out.write(f"warning: {warning(claim)}\n")
    if grounding and missing and grounding.get("note"):
        out.write(f"warning: {grounding['note']}\n")


def _fmt_ms(ms: float | None) -> str:
    if ms is None or ms != ms:
        return "—"
    return f"{ms / 1000:.1f} s" if ms >= 1000 else f"{ms:.0f} ms"


ID_WIDTH = 36
"""The ``runs`` table's run-id column (a UUIDv7 run id is 36 characters)."""


def json_row(row: dict[str, Any]) -> dict[str, Any]:
    """One run-table row as JSON values: times as ISO 8601, a missing number as null (never NaN),
    ``tools_offered`` as a list of names (the index keeps it as JSON text)."""
    out: dict[str, Any] = {}
    for key, value in row.items():
        if isinstance(value, float) and value != value:
            value = None
        elif value is not None and hasattr(value, "isoformat"):
            value = None if str(value) == "NaT" else value.isoformat()
        elif value is not None and type(value).__name__ == "NAType":
            value = None
        out[key] = value
    tools = out.get("tools_offered")
    if isinstance(tools, str):
        try:
            out["tools_offered"] = json.loads(tools)
        except ValueError:
            out["tools_offered"] = [tools]
    elif "tools_offered" in out and tools is None:
        out["tools_offered"] = []
    return out


def cmd_runs(args: argparse.Namespace, settings: Settings) -> int:
    import pandas as pd

    from agent_core.records.queries import FolderQueries, RunFilter
    from agent_core.records.store import RunStore

    url = getattr(settings, "store_url", None)
    if url:  # the team store: the newest runs, read with SQL
        import psycopg

        from agent_core.pgstore import StoreError, explain, safe_url
        from agent_core.pgstore.reading import PgQueries

        reader = PgQueries.from_url(url)
        try:
            runs = reader.page(RunFilter(), size=max(1, args.limit)).rows.head(max(0, args.limit))
        except (StoreError, psycopg.Error) as exc:
            sys.stderr.write(f"error: {explain(exc, url)}\n")
            return EXIT_FAILED
        finally:
            reader.close()
        where = f"the team store {safe_url(url)}"
    else:
        store = RunStore(settings.runs_dir)
        store.refresh()
        for name, reason in store.problems():
            sys.stderr.write(f"skipped {name}: {reason}\n")
        runs = FolderQueries(store).page(RunFilter(), size=max(1, args.limit)).rows.head(max(0, args.limit))
        where = str(settings.runs_dir)
    from agent_core.records.outcome import shown

    if args.json:
        for row in runs.to_dict("records"):
            sys.stdout.write(json.dumps(json_row(row), ensure_ascii=False, default=str, allow_nan=False) + "\n")
        return EXIT_OK
    if runs.empty:
        sys.stdout.write(f"no runs yet in {where}\n")
        return EXIT_OK
    # The run id first: summary, compare, export and replay take it.
    header = (
        f"{'run id':<{ID_WIDTH}}  {'time (UTC)':<19}  {'outcome':<10} {'provider':<11} {'steps':>5} {'tools':>5} "
        f"{'duration':>9}  goal"
    )
    lines = [header, "-" * len(header)]
    for row in runs.itertuples(index=False):
        when = "?" if pd.isna(row.started_at) else row.started_at.strftime("%Y-%m-%d %H:%M:%S")
        goal = " ".join(str(row.goal).split())
        goal = goal if len(goal) <= 60 else goal[:59] + "…"
        said = shown(row.outcome if isinstance(row.outcome, str) else None, row.status)
        lines.append(
            f"{row.run_id:<{ID_WIDTH}}  {when:<19}  {said:<10} {row.provider:<11} {row.steps:>5} {row.tool_calls:>5} "
            f"{_fmt_ms(row.duration_ms):>9}  {goal}"
        )
    sys.stdout.write("\n".join(lines) + "\n")
    return EXIT_OK


def _ensure_workspace(settings: Settings) -> None:
    """A data folder with no ``workspace/`` gets the sample documents (as the app does), said on stderr."""
    from agent_core.tools.sample_workspace import ensure_sample_workspace

    try:
        if ensure_sample_workspace(settings.workspace_dir):
            sys.stderr.write(
                f"The data folder had no workspace/: copied the sample documents to {settings.workspace_dir}\n"
            )
    except OSError as exc:
        sys.stderr.write(
            f"warning: no workspace folder at {settings.workspace_dir} and the sample could not be copied ({exc})\n"
        )


def exit_process(code: int) -> NoReturn:
    """End ``python -m agent_core`` with ``code``.

    When the local model is loaded and no other thread is still at work (every other thread is a
    daemon), the interpreter's teardown is skipped: freeing llama.cpp's server, model and KV cache
    took ~0.5 s of every CLI run (0.34 s for the server alone) and writes nothing; the record is
    saved and closed before this. Otherwise, or if the output cannot be flushed, a normal exit
    (which waits for a thread still sending a run).
    """
    engine = sys.modules.get("agent_core.providers.local.engine")
    loaded = engine is not None and engine.current() is not None
    others = [t for t in threading.enumerate() if t is not threading.current_thread() and not t.daemon]
    if loaded and not others:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except (OSError, ValueError):
            sys.exit(code)
        logging.shutdown()
        os._exit(code)
    sys.exit(code)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit code."""
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "schema":
        from agent_core.records.run_record import json_schema_text

        sys.stdout.write(json_schema_text())
        return EXIT_OK
    try:
        settings = Settings.from_env()
    except ValueError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return EXIT_USAGE
    if args.command in ("run", "eval", "arena", "replay", "workspace"):
        _ensure_workspace(settings)
    if args.command == "run":
        return cmd_run(args, settings)
    handled = cli_explain.run_command(args, settings)
    if handled is not None:
        return handled
    if args.command == "compare":
        from agent_core.cli.compare import cmd_compare

        return cmd_compare(args, settings)
    if args.command == "replay":
        from agent_core.cli.compare import cmd_replay

        return with_store_note(cmd_replay(args, settings), settings)
    if args.command == "arena":
        from agent_core.cli.compare import cmd_arena

        return with_store_note(cmd_arena(args, settings), settings)
    if args.command == "tools":
        from agent_core.cli.tools import cmd_tools

        return cmd_tools(args, settings)
    if args.command == "workspace":
        from agent_core.cli.workspace import cmd_workspace

        return cmd_workspace(args, settings)
    if args.command == "sync":
        from agent_core.cli.store import cmd_sync

        return cmd_sync(args, settings)
    if args.command in ("goals", "label", "labels"):
        from agent_core.cli import goals as cli_goals

        run = {"goals": cli_goals.cmd_goals, "label": cli_goals.cmd_label, "labels": cli_goals.cmd_labels}
        return run[args.command](args, settings)
    if args.command == "eval":
        from agent_core.cli.evals import cmd_eval

        return with_store_note(cmd_eval(args, settings), settings)
    if args.command in ("export", "import"):
        from agent_core.cli import otel as otel_cli

        if args.command == "import":
            if cli_explain.is_page_or_record(Path(args.file)):
                return cli_explain.cmd_import(args, settings)
            return otel_cli.cmd_import_otlp(Path(args.file), settings)
        if args.html:
            done = cli_explain.cmd_export(args, settings)
            if done != EXIT_OK or not otel_cli.wants_otlp(args):
                return done
        elif not otel_cli.wants_otlp(args):
            sys.stderr.write("error: say where to export: --html FILE, --otlp URL or --otlp-json FILE\n")
            return EXIT_USAGE
        return otel_cli.cmd_export_otlp(args, settings)
    return cmd_runs(args, settings)
