"""``goals add|from-filter``, ``label`` and ``labels export|import``: from runs to goal sets.

- ``goals add RUN_ID... --to FILE.yaml``: one goal per run, checks pre-filled from the run (see
  :mod:`agent_core.evals.from_runs`); a goal already in the file (same text and tools) is not added.
- ``goals from-filter --to FILE.yaml [--flagged] [--status S] …``: the same for every run that
  passes History's filters.
- ``label RUN_ID pass|fail|clear [--reason R] [--answer TEXT]``: a person's verdict on a run.
- ``labels export FILE`` / ``labels import FILE``: labels as JSON lines (``-``: stdout / stdin).

Exit codes: 0 done, 2 bad input (an unknown run, a bad file; nothing written).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from agent_core.cli.common import EXIT_OK, usage_error
from agent_core.settings import Settings

FLAGGED = ("partly", "ungrounded")
"""``--flagged``: runs whose answer the answer check flagged."""


def add_parsers(sub: Any) -> None:
    """Add ``goals``, ``label`` and ``labels`` to the CLI's subparsers."""
    goals = sub.add_parser("goals", help="make goals of a goal set from saved runs (checks pre-filled from each run)")
    actions = goals.add_subparsers(dest="goals_command", required=True)
    add = actions.add_parser("add", help="one goal per run, added to a goal-set file (made when missing)")
    add.add_argument("run_ids", nargs="+", metavar="RUN_ID", help="runs to make goals from")
    _target(add)
    flt = actions.add_parser("from-filter", help="a goal for every run that passes the filters (History's)")
    flt.add_argument("--flagged", action="store_true", help="runs whose answer the answer check flagged")
    flt.add_argument(
        "--check",
        action="append",
        default=[],
        metavar="VERDICT",
        help="answer-check verdict: grounded, partly, ungrounded, no_claims, or none (not checked); repeatable",
    )
    flt.add_argument("--status", action="append", default=[], help="completed, max_steps, error, cancelled …")
    flt.add_argument("--provider", action="append", default=[], help="repeatable")
    flt.add_argument("--model", action="append", default=[], help="repeatable")
    flt.add_argument("--text", default="", help="words in the goal or the run id")
    flt.add_argument("--min-cost", type=float, help="runs that cost more than this (USD)")
    flt.add_argument("--min-retries", type=int, help="runs with more retries than this (model and tool)")
    flt.add_argument(
        "--label", action="append", default=[], help="people's verdict: pass, fail, or none (unlabelled); repeatable"
    )
    flt.add_argument("--no-demos", action="store_true", help="leave out scripted demo runs")
    flt.add_argument("--limit", type=int, default=500, help="at most this many runs, newest first (default 500)")
    flt.add_argument("--dry-run", action="store_true", help="list the runs and their goals; write nothing")
    _target(flt)

    label = sub.add_parser("label", help="label a run: pass or fail (clear takes the label off)")
    label.add_argument("run_id", metavar="RUN_ID")
    label.add_argument("verdict", choices=("pass", "fail", "clear"))
    label.add_argument("--reason", default="", help="why")
    label.add_argument("--answer", default="", help="the corrected answer (goals made from the run check its figures)")

    labels = sub.add_parser("labels", help="export or import labels as JSON lines")
    verbs = labels.add_subparsers(dest="labels_command", required=True)
    out = verbs.add_parser("export", help="every label, one JSON object a line (oldest first)")
    out.add_argument("file", help="where to write them (- for stdout)")
    inp = verbs.add_parser("import", help="labels from JSON lines (the newer label of a run wins)")
    inp.add_argument("file", help="the file to read (- for stdin)")


def _target(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--to", required=True, metavar="FILE.yaml", help="the goal-set file (made when missing)")
    parser.add_argument("--name", help="the set's name when the file is made (default: the file's name)")
    parser.add_argument("--json", action="store_true", help="print what was added as JSON")


def cmd_goals(args: argparse.Namespace, settings: Settings) -> int:
    if args.goals_command == "add":
        return _add(args, settings, list(dict.fromkeys(args.run_ids)))
    try:
        run_ids = _filtered(args, settings)
    except ValueError as exc:
        return usage_error(exc)
    if not run_ids:
        sys.stderr.write("no run passes these filters: nothing added\n")
        return EXIT_OK
    return _add(args, settings, run_ids)


def _filtered(args: argparse.Namespace, settings: Settings) -> list[str]:
    from agent_core.pgstore.reading import reading_store
    from agent_core.records.labels import LABEL_CHOICES
    from agent_core.records.queries import RunFilter, queries_for

    checks = [*(FLAGGED if args.flagged else ()), *("" if c == "none" else c for c in args.check)]
    labels = ["" if x == "none" else x for x in args.label]
    bad = [x for x in labels if x not in LABEL_CHOICES]
    if bad:
        raise ValueError(f"--label must be pass, fail or none (got {bad[0]!r})")
    if args.limit < 1:
        raise ValueError("--limit must be at least 1")
    where = RunFilter(
        providers=tuple(args.provider),
        models=tuple(args.model),
        statuses=tuple(args.status),
        text=args.text,
        checks=tuple(dict.fromkeys(checks)),
        min_cost_usd=args.min_cost,
        min_retries=args.min_retries,
        labels=tuple(labels),
        include_demos=not args.no_demos,
    )
    store = reading_store(settings)
    store.refresh()
    page = queries_for(store).page(where, size=args.limit)
    return [str(r) for r in page.rows["run_id"].tolist()]


def _add(args: argparse.Namespace, settings: Settings, run_ids: list[str]) -> int:
    from agent_core.errors import RecordError
    from agent_core.evals.from_runs import add_goals, draft_from_record
    from agent_core.evals.goalset import GoalSetError
    from agent_core.pgstore.labels import label_store
    from agent_core.pgstore.reading import reading_store

    store = reading_store(settings)
    labels = label_store(settings).get(run_ids)
    drafts = []
    for run_id in run_ids:
        try:
            record = store.load(run_id)
            drafts.append(draft_from_record(record, labels.get(run_id)))
        except (RecordError, ValueError) as exc:
            return usage_error(ValueError(f"run {run_id}: {exc}"))
    for draft in drafts:
        for note in draft.notes:
            sys.stderr.write(f"note: run {draft.run_id}: {note}\n")
    if getattr(args, "dry_run", False):
        for draft in drafts:
            sys.stdout.write(f"{draft.run_id}  {draft.id}  {' · '.join(_check_text(c) for c in draft.checks)}\n")
        return EXIT_OK
    try:
        result = add_goals(Path(args.to), drafts, name=args.name)
    except (GoalSetError, OSError) as exc:
        return usage_error(exc)
    if args.json:
        payload = {
            "file": str(result.path),
            "added": result.added,
            "duplicates": [{"run_id": r, "goal_id": g} for r, g in result.duplicates],
        }
        sys.stdout.write(json.dumps(payload, ensure_ascii=False, indent=2) + "\n")
        return EXIT_OK
    added = set(result.added_runs)
    for draft in drafts:
        if draft.run_id in added:
            sys.stdout.write(
                f"+ {draft.id}  ({' · '.join(_check_text(c) for c in draft.checks)})  from {draft.run_id}\n"
            )
    for run_id, goal_id in result.duplicates:
        sys.stdout.write(f"= {run_id} is goal {goal_id} already\n")
    sys.stdout.write(result.sentence() + "\n")
    return EXIT_OK


def _check_text(check: dict[str, Any]) -> str:
    ((kind, arg),) = check.items()
    return f"{kind} {json.dumps(arg, ensure_ascii=False)}"


def cmd_label(args: argparse.Namespace, settings: Settings) -> int:
    from agent_core.errors import RecordError
    from agent_core.pgstore.labels import label_store
    from agent_core.pgstore.reading import reading_store
    from agent_core.records.labels import Label, LabelError

    try:
        reading_store(settings).load(args.run_id)
    except RecordError as exc:
        return usage_error(ValueError(f"run {args.run_id}: {exc}"))
    labels = label_store(settings)
    if args.verdict == "clear":
        done = labels.remove(args.run_id)
        sys.stdout.write(f"{args.run_id}: {'label taken off' if done else 'had no label'}\n")
    else:
        try:
            label = Label.make(
                args.run_id, args.verdict, reason=args.reason, corrected_answer=args.answer, user=settings.user
            )
        except LabelError as exc:
            return usage_error(exc)
        labels.put([label])
        sys.stdout.write(f"{args.run_id}: {label.verdict}{f' ({label.reason})' if label.reason else ''}\n")
    _store_problem(labels)
    return EXIT_OK


def _store_problem(labels: Any) -> None:
    problem = getattr(labels, "problem", None)
    if problem:
        sys.stderr.write(f"note: kept in the data folder only; the team store: {problem}\n")


def cmd_labels(args: argparse.Namespace, settings: Settings) -> int:
    from agent_core.pgstore.labels import label_store
    from agent_core.records.labels import LabelError, parse_jsonl, to_jsonl

    labels = label_store(settings)
    if args.labels_command == "export":
        text = to_jsonl(labels.all())
        if args.file == "-":
            sys.stdout.write(text)
        else:
            Path(args.file).write_text(text, encoding="utf-8")
            sys.stderr.write(f"{text.count(chr(10)):,} labels written to {args.file}\n")
        _store_problem(labels)
        return EXIT_OK
    try:
        data = sys.stdin.buffer.read() if args.file == "-" else Path(args.file).read_bytes()
        found = parse_jsonl(data, "stdin" if args.file == "-" else args.file)
    except OSError as exc:
        return usage_error(ValueError(f"{args.file}: cannot be read ({exc.strerror or exc})"))
    except LabelError as exc:
        return usage_error(exc)
    count = labels.put(found)
    sys.stdout.write(
        f"{len(found):,} labels read: {count.added:,} new, {count.replaced:,} replaced an older one, "
        f"{count.kept:,} kept (the stored label was as new or newer)\n"
    )
    _store_problem(labels)
    return EXIT_OK
