"""CLI commands that explain and move a run: ``summary``, ``export --html`` and ``import``.

Kept apart from :mod:`agent_core.cli.main` so that module only wires them in (:func:`add_commands`,
:func:`run_command`).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from agent_core.cli.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from agent_core.errors import RecordError
from agent_core.settings import Settings

COMMANDS = ("summary",)
"""Commands this module adds; ``export`` and ``import`` are shared with OTLP (see :mod:`agent_core.cli.main`)."""


def add_commands(sub: Any) -> None:
    """Add the subcommands to ``sub`` (the parser's subparsers)."""
    summary = sub.add_parser("summary", help="a saved run in plain words, with why it failed")
    summary.add_argument("run_id", help="the run's id (see `runs`), or a record's JSON file")
    summary.add_argument("--one-line", action="store_true", help="only the one-line version")
    summary.add_argument("--json", action="store_true", help="sentences, failure and facts as JSON")


def add_html_export_arguments(export: argparse.ArgumentParser) -> None:
    """The web-page options of the shared ``export`` subcommand (``run_ids`` comes with the OTLP ones)."""
    group = export.add_argument_group("Web page")
    group.add_argument("--html", metavar="FILE", help="one self-contained web page of ONE run (offline, imports back)")
    group.add_argument("--hide-outputs", action="store_true", help="leave tool outputs out of the web page")


def is_page_or_record(path: Path) -> bool:
    """A file for :func:`cmd_import` (an exported page or a record's JSON), not an OTLP file."""
    if path.suffix.lower() in (".html", ".htm"):
        return True
    if path.suffix.lower() in (".jsonl", ".otlp"):
        return False
    try:
        with path.open("rb") as handle:
            return b'"resourceSpans"' not in handle.read(4096)
    except OSError:
        return True  # cmd_import says what is wrong with it


def _load(run_id: str, settings: Settings) -> dict[str, Any]:
    from agent_core.records.files import effective_status, load_record
    from agent_core.records.store import RunStore

    path = Path(run_id)
    if path.suffix == ".json" and path.is_file():
        record = load_record(path)
        record["status_shown"] = effective_status(record)
        return record
    if not (settings.runs_dir / f"{run_id}.json").is_file():
        prefixed = sorted(settings.runs_dir.glob(f"{run_id}*.json")) if run_id and "/" not in run_id else []
        if len(prefixed) != 1:
            raise RecordError(f"no saved run {run_id!r} in {settings.runs_dir} (see `python -m agent_core runs`)")
        run_id = prefixed[0].stem
    return RunStore(settings.runs_dir, persist=False).load(run_id)


def cmd_summary(args: argparse.Namespace, settings: Settings) -> int:
    from agent_core.analysis.explain import as_text, explain

    try:
        record = _load(args.run_id, settings)
    except RecordError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return EXIT_USAGE
    result = explain(record)
    if args.json:
        failure = result.failure
        out = {
            "run_id": record.get("run_id"),
            "status": result.status,
            "one_line": result.one_line,
            "sentences": [{"text": s.text, "step": s.step, "topic": s.topic} for s in result.sentences],
            "failure": None
            if failure is None
            else {
                "cause": failure.cause,
                "headline": failure.headline,
                "step": failure.step,
                "hints": failure.hints,
            },
            "facts": result.facts,
            "technical": result.technical,
        }
        sys.stdout.write(json.dumps(out, ensure_ascii=False, indent=2) + "\n")
    elif args.one_line:
        sys.stdout.write(result.one_line + "\n")
    else:
        sys.stdout.write(as_text(result) + "\n")
    return EXIT_OK


def cmd_export(args: argparse.Namespace, settings: Settings) -> int:
    from agent_core.analysis.export_html import export_html

    run_ids = list(getattr(args, "run_ids", None) or [])
    if len(run_ids) != 1 or getattr(args, "since", None):
        sys.stderr.write("error: --html exports one run: give exactly one RUN_ID\n")
        return EXIT_USAGE
    try:
        record = _load(run_ids[0], settings)
    except RecordError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return EXIT_USAGE
    page = export_html(record, hide_outputs=args.hide_outputs)
    try:
        Path(args.html).write_text(page, encoding="utf-8")
    except OSError as exc:
        sys.stderr.write(f"error: cannot write {args.html}: {exc.strerror or exc}\n")
        return EXIT_FAILED
    sys.stderr.write(f"wrote {args.html} ({len(page.encode('utf-8')) / 1024:.0f} KB)\n")
    return EXIT_OK


def cmd_import(args: argparse.Namespace, settings: Settings) -> int:
    from agent_core.analysis.import_run import ImportProblem, import_file

    try:
        record, path = import_file(Path(args.file), settings.runs_dir)
    except ImportProblem as exc:
        sys.stderr.write(f"error: {exc}\n")
        return EXIT_USAGE
    except OSError as exc:
        sys.stderr.write(f"error: cannot save the run: {exc}\n")
        return EXIT_FAILED
    sys.stdout.write(f"{record['run_id']}\n")
    sys.stderr.write(f"imported ({record.get('imported_from')}): {path}\n")
    return EXIT_OK


def run_command(args: argparse.Namespace, settings: Settings) -> int | None:
    """Run one of :data:`COMMANDS`; None for any other command."""
    handler = {"summary": cmd_summary}.get(args.command)
    return None if handler is None else handler(args, settings)
