"""CLI commands ``compare``, ``replay`` and ``arena`` (wired into :mod:`agent_core.cli`)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from agent_core.errors import RecordError
from agent_core.settings import Settings

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def add_compare_parser(sub: Any) -> None:
    """``compare RUN_ID RUN_ID... [--json] [--baseline ID] [--ignore-arguments]``."""
    cmp = sub.add_parser("compare", help="compare 2–6 saved runs: deltas, aligned steps, first divergence")
    cmp.add_argument("run_ids", nargs="+", metavar="RUN_ID", help="2 to 6 run ids")
    cmp.add_argument("--baseline", help="run id to compare against (default: the first)")
    cmp.add_argument("--ignore-arguments", action="store_true", help="align on tool names only")
    cmp.add_argument("--json", action="store_true", help="print the comparison as JSON")


def load_runs(settings: Settings, run_ids: list[str]) -> list[dict[str, Any]]:
    """The records of ``run_ids``; ValueError naming every id that is unknown or unreadable."""
    from agent_core.store import RunStore

    store = RunStore(settings.runs_dir)
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
    from agent_core.compare import NUMERIC_FIELDS, check_count, compare

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
