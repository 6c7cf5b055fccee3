"""CLI commands ``compare``, ``replay`` and ``arena`` (wired into :mod:`agent_core.cli.main`)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from agent_core.cli import approve as cli_approve
from agent_core.cli.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, ProviderEntries, usage_error
from agent_core.errors import RecordError
from agent_core.settings import Settings


def add_compare_parser(sub: Any) -> None:
    """``compare RUN_ID RUN_ID... [--json] [--baseline ID] [--ignore-arguments]``."""
    cmp = sub.add_parser("compare", help="compare 2–6 saved runs: deltas, aligned steps, first divergence")
    cmp.add_argument("run_ids", nargs="+", metavar="RUN_ID", help="2 to 6 run ids")
    cmp.add_argument("--baseline", help="run id to compare against (default: the first)")
    cmp.add_argument("--ignore-arguments", action="store_true", help="align on tool names only")
    cmp.add_argument("--json", action="store_true", help="print the comparison as JSON")


def load_runs(settings: Settings, run_ids: list[str]) -> list[dict[str, Any]]:
    """The records of ``run_ids``; ValueError naming every id that is unknown or unreadable."""
    from agent_core.records.store import RunStore

    store: Any = RunStore(settings.runs_dir)
    if getattr(settings, "store_url", None):
        from agent_core.pgstore.reading import reading_store

        store = reading_store(settings)
    records, bad = [], []
    refreshed = False
    for run_id in run_ids:
        try:
            records.append(store.load(run_id))
            continue
        except RecordError:
            if not refreshed:  # a record saved under another file name: look it up in the index
                store.refresh()
                refreshed = True
                try:
                    records.append(store.load(run_id))
                    continue
                except RecordError as again:
                    exc = again
            bad.append(f"{run_id} ({exc})" if (settings.runs_dir / f"{run_id}.json").exists() else run_id)
    if bad:
        raise ValueError(f"unknown run id(s): {', '.join(bad)} (see `python -m agent_core runs`)")
    return records


def _fmt(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.4f}" if abs(value) < 1 else f"{value:,.0f}"
    return str(value)


def _fmt_delta(value: Any) -> str:
    if value is None or value == 0:
        return ""
    return f" ({'+' if value > 0 else ''}{_fmt(value)})"


def cmd_compare(args: argparse.Namespace, settings: Settings) -> int:
    from agent_core.analysis.compare import NUMERIC_FIELDS, check_count, compare

    try:
        check_count(len(args.run_ids))
        if len(set(args.run_ids)) != len(args.run_ids):
            raise ValueError("a run id is given twice")
        records = load_runs(settings, args.run_ids)
        result = compare(records, baseline=args.baseline or 0, ignore_arguments=args.ignore_arguments)
    except ValueError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return EXIT_USAGE
    data = result.as_dict()
    if args.json:
        sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n")
        return EXIT_OK
    out = []
    for run in data["runs"]:
        mark = " (baseline)" if run["baseline"] else ""
        out.append(f"run {run['label']}{mark}: {run['run_id']}  {run['status']}  {run['provider']}/{run['model']}")
        parts = [f"{key}={_fmt(run[key])}{_fmt_delta(run['deltas'][key])}" for key in NUMERIC_FIELDS]
        if run.get("grounding"):
            parts.append(f"grounding={run['grounding']}")
        out.append("    " + "  ".join(parts))
    first = data["first_divergence"]
    out.append("")
    out.append(first["sentence"] if first else "No divergence: the runs did the same things and got the same results.")
    out.append("")
    labels = [run["label"] for run in data["runs"]]
    ids = [run["run_id"] for run in data["runs"]]
    out.append("aligned steps:  " + " | ".join(f"run {label}" for label in labels))
    for row in data["alignment"]:
        cells = []
        for rid in ids:
            cell = row["cells"][rid]
            if cell is None:
                cells.append("·")
            else:
                text = cell["tool"] or cell["kind"]
                cells.append(("*" if cell["differs"] else "") + text)
        out.append(f"  {row['row']:>3}  " + " | ".join(cells))
    sys.stdout.write("\n".join(out) + "\n")
    return EXIT_OK


def add_replay_parser(sub: Any) -> None:
    """``replay RUN_ID --provider P [--model M] [--tools …] [--match …] [--from-step K] [--json]``."""
    from agent_core.analysis.replay import MATCH_MODES, SOURCE_PROVIDER, TOOL_MODES
    from agent_core.providers import PROVIDER_IDS

    rep = sub.add_parser("replay", help="replay a saved run on another provider/model, tools from its log")
    rep.add_argument("run_id", metavar="RUN_ID")
    rep.add_argument(
        "--provider",
        required=True,
        choices=(*PROVIDER_IDS, SOURCE_PROVIDER),
        help=f"the model to replay on ({SOURCE_PROVIDER}: the run's own recorded turns)",
    )
    rep.add_argument("--model", help="model name for the provider")
    rep.add_argument("--base-url", help="API base URL for this replay")
    rep.add_argument(
        "--tools",
        choices=TOOL_MODES,
        default="recorded",
        help="recorded: answers from the run's tool log (default); live: run the tools; "
        "hybrid: recorded where a call matches, live otherwise",
    )
    rep.add_argument(
        "--match",
        choices=MATCH_MODES,
        default="fifo",
        help="fifo: next recorded call of the same tool (default); strict: same arguments, "
        "and unexpected or unmade calls fail the replay",
    )
    rep.add_argument("--from-step", type=int, help="keep the run's steps before K and let the new model continue")
    cli_approve.add_argument(rep, interactive=False)
    rep.add_argument("--json", action="store_true", help="print the new record as JSON")
    rep.add_argument("--quiet", "-q", action="store_true", help="no progress on stderr")


def cmd_replay(args: argparse.Namespace, settings: Settings) -> int:
    from agent_core.analysis.compare import compare
    from agent_core.analysis.replay import prepare_replay
    from agent_core.cli.progress import print_progress
    from agent_core.errors import ProviderUnavailable
    from agent_core.run.events import RunFinished

    try:
        (source,) = load_runs(settings, [args.run_id])
        replay = prepare_replay(
            source,
            args.provider,
            model=args.model,
            base_url=args.base_url,
            tool_mode=args.tools,
            match=args.match,
            from_step=args.from_step,
            settings=settings,
            approver=cli_approve.fixed(args.approve, "replay"),
        )
    except (ProviderUnavailable, ValueError) as exc:
        return usage_error(exc)
    finished: RunFinished | None = None
    for event in replay.events():
        if not args.quiet:
            print_progress(event, sys.stderr)  # type: ignore[arg-type]  # the loop's events
        if isinstance(event, RunFinished):
            finished = event
    assert finished is not None
    record = replay.record or {}
    if args.json:
        sys.stdout.write(json.dumps(record, ensure_ascii=False, indent=2, default=str) + "\n")
    else:
        sys.stdout.write((finished.answer or "") + "\n")
    if record:
        first = compare([source, record]).first
        sys.stderr.write(
            (first.sentence if first else "Same as the source run: the same calls, results and answer.")
            + f"\nlive tool executions: {replay.tools.live_executions}\n"
        )
    if finished.status != "completed":
        message = finished.error["message"] if finished.error else finished.status
        sys.stderr.write(f"replay {finished.status}: {message}\n")
    sys.stderr.write(
        f"record: {finished.path}\ncompare: python -m agent_core compare {args.run_id} {finished.run_id}\n"
    )
    return EXIT_OK if finished.status == "completed" else EXIT_FAILED


def add_arena_parser(sub: Any) -> None:
    """``arena "GOAL" --provider P [--model M] --provider Q ... [--budget-usd X] [--json]``."""
    from agent_core.providers import PROVIDER_IDS

    arena = sub.add_parser("arena", help="run one goal on 2–6 providers/models at once and compare them")
    arena.add_argument("goal", help="what the agents should do")
    arena.add_argument(
        "--provider",
        action=ProviderEntries,
        dest="provider",
        choices=PROVIDER_IDS,
        required=True,
        help="an entry (repeat: 2 to 6); a --model after it applies to it",
    )
    arena.add_argument("--model", action=ProviderEntries, dest="model", help="model of the preceding --provider")
    arena.add_argument(
        "--base-url", action=ProviderEntries, dest="base_url", help="base URL of the preceding --provider"
    )
    arena.add_argument("--budget-usd", type=float, help="stop every run once their summed cost passes this")
    arena.add_argument("--max-steps", type=int, help="step limit of every run")
    arena.add_argument("--tools", help="comma-separated tool names to enable (default: all)")
    cli_approve.add_argument(arena, interactive=False)
    arena.add_argument("--json", action="store_true", help="print runs, verdicts and the comparison as JSON")
    arena.add_argument("--quiet", "-q", action="store_true", help="no progress on stderr")


def cmd_arena(args: argparse.Namespace, settings: Settings) -> int:
    from agent_core.analysis.arena import ArenaEntry, prepare_arena, verdicts
    from agent_core.analysis.compare import compare
    from agent_core.errors import ProviderUnavailable
    from agent_core.run.events import RunFinished, StepFinished

    entries = [ArenaEntry(e["provider"], e.get("model"), e.get("base_url")) for e in getattr(args, "entries", [])]
    try:
        arena = prepare_arena(
            args.goal,
            entries,
            settings=settings,
            budget_usd=args.budget_usd,
            overrides={"max_steps": args.max_steps} if args.max_steps else None,
            tools=[t for t in args.tools.split(",")] if args.tools else None,
            approver=cli_approve.fixed(args.approve, "arena"),
        )
    except (ProviderUnavailable, ValueError) as exc:
        return usage_error(exc)
    labels = [e.label() for e in entries]
    try:
        for index, event in arena.events():
            if args.quiet:
                continue
            if isinstance(event, StepFinished):
                sys.stderr.write(f"[{labels[index]}] step {event.step} done\n")
            elif isinstance(event, RunFinished):
                sys.stderr.write(f"[{labels[index]}] {event.status}\n")
    except KeyboardInterrupt:
        arena.stop()
        sys.stderr.write("interrupted: every run was stopped\n")
        return 130
    from agent_core.records.files import load_record

    records = []
    for run_id in arena.run_ids:
        try:
            records.append(load_record(settings.runs_dir / f"{run_id}.json"))
        except Exception as exc:
            sys.stderr.write(f"run {run_id}: record unreadable ({exc})\n")
    lines = verdicts(records)
    comparison = compare(records).as_dict() if len(records) >= 2 else None
    if args.json:
        data = {
            "arena_id": arena.arena_id,
            "goal": arena.goal,
            "wall_s": round(arena.wall_s, 3),
            "budget_usd": arena.budget_usd,
            "spent_usd": round(arena.spent, 6),
            "budget_hit": arena.budget_hit,
            "runs": [
                {
                    "run_id": r.get("run_id"),
                    "provider": r.get("provider"),
                    "model": r.get("model"),
                    "status": r.get("status"),
                    "answer": r.get("answer"),
                    "cost_usd": r.get("cost_usd"),
                    "duration_ms": r.get("duration_ms"),
                    "error": r.get("error"),
                }
                for r in records
            ],
            "verdicts": lines,
            "comparison": comparison,
        }
        sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n")
    else:
        sys.stdout.write("\n".join(lines) + "\n")
        if comparison and comparison["first_divergence"]:
            sys.stdout.write(comparison["first_divergence"]["sentence"] + "\n")
        sys.stdout.write(f"compare: python -m agent_core compare {' '.join(arena.run_ids)}\n")
    if arena.budget_hit:
        sys.stderr.write(f"budget of ${arena.budget_usd} passed: every run was stopped\n")
    return EXIT_OK if records and all(r.get("status") == "completed" for r in records) else EXIT_FAILED
