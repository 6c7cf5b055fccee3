"""CLI commands of issue 16: ``summary`` (``export --html`` and ``import`` follow).

Kept apart from :mod:`agent_core.cli` so that module only wires them in (:func:`add_commands`,
:func:`run_command`).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from agent_core.errors import RecordError
from agent_core.settings import Settings

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
COMMANDS = ("summary",)


def add_commands(sub: Any) -> None:
    """Add the subcommands to ``sub`` (the parser's subparsers)."""
    summary = sub.add_parser("summary", help="a saved run in plain words, with why it failed")
    summary.add_argument("run_id", help="the run's id (see `runs`), or a record's JSON file")
    summary.add_argument("--one-line", action="store_true", help="only the one-line version")
    summary.add_argument("--json", action="store_true", help="sentences, failure and facts as JSON")


def _load(run_id: str, settings: Settings) -> dict[str, Any]:
    from agent_core.records import effective_status, load_record
    from agent_core.store import RunStore

    path = Path(run_id)
    if path.suffix == ".json" and path.is_file():
        record = load_record(path)
        record["status_shown"] = effective_status(record)
        return record
    if not (settings.runs_dir / f"{run_id}.json").is_file():
        raise RecordError(f"no saved run {run_id!r} in {settings.runs_dir} (see `python -m agent_core runs`)")
    return RunStore(settings.runs_dir, persist=False).load(run_id)


def cmd_summary(args: argparse.Namespace, settings: Settings) -> int:
    from agent_core.explain import as_text, explain

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
            "failure": None if failure is None else {
                "cause": failure.cause, "headline": failure.headline, "step": failure.step, "hints": failure.hints,
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


def run_command(args: argparse.Namespace, settings: Settings) -> int | None:
    """Run one of :data:`COMMANDS`; None for any other command."""
    handler = {"summary": cmd_summary}.get(args.command)
    return None if handler is None else handler(args, settings)
