"""``python -m agent_core eval FILE [--provider P [--model M]]... [--repeats K] [--concurrency N]
[--baseline EVAL_ID|latest] [--min-pass 0.8] [--judge P [--judge-model M]] [--json]``.

A progress line per finished run goes to stderr; stdout gets the scores (or the result as JSON).
Exit code: 0 when every provider reaches ``--min-pass``, 1 when one does not (or the eval was
stopped), 2 for bad input (the goal-set file, an unknown provider, a baseline that is not there).
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import threading
from typing import Any, TextIO

from agent_core.cli.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, ProviderEntries, usage_error
from agent_core.errors import ProviderUnavailable
from agent_core.evals.goalset import GoalSetError, load_goal_set
from agent_core.evals.judge import Judge
from agent_core.evals.runner import EvalRun, Progress, Target, evals_dir
from agent_core.settings import Settings

JSON_KEYS = (
    "eval_id",
    "goal_set",
    "complete",
    "planned",
    "repeats",
    "targets",
    "judge",
    "started_at",
    "finished_at",
    "duration_ms",
    "summary",
    "cells",
    "baseline",
    "flips",
    "mcnemar_p",
    "mcnemar",
)


def add_parser(sub: Any) -> None:
    """Add the ``eval`` command to the CLI's subparsers."""
    ev = sub.add_parser("eval", help="run a goal set with checks on one or more providers/models")
    ev.add_argument("file", help="goal-set YAML file (e.g. evals/seeds.yaml)")
    ev.add_argument(
        "--provider",
        action=ProviderEntries,
        dest="provider",
        metavar="P",
        help="provider to evaluate; repeat for several (default: the set's, else local or offline)",
    )
    ev.add_argument(
        "--model", action=ProviderEntries, dest="model", metavar="M", help="model for the --provider before it"
    )
    ev.add_argument("--repeats", type=int, default=1, help="runs per goal and model (default 1)")
    ev.add_argument("--concurrency", type=int, default=4, help="runs at once on remote providers (default 4)")
    ev.add_argument("--baseline", help="an earlier eval id of the same set, or 'latest', to count flips against")
    ev.add_argument("--min-pass", type=float, default=0.0, help="exit 1 when a provider's pass rate is below this")
    ev.add_argument(
        "--judge", metavar="P", help="provider that judges 'judge' checks (default: the set's; none: not judged)"
    )
    ev.add_argument("--judge-model", metavar="M", help="model of the judge")
    ev.add_argument("--json", action="store_true", help="print the result as JSON")
    ev.add_argument("--quiet", "-q", action="store_true", help="no progress on stderr")


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.0f}%"


def progress_line(p: Progress) -> str:
    row = p.row
    verdict = {True: "pass", False: "FAIL", None: "n/a"}[row["passed"]]
    failed = [c["check"] for c in row["checks"] if c["passed"] is False]
    tail = f"  ✗ {'; '.join(failed)[:120]}" if failed else ""
    return (
        f"[{p.done}/{p.total}] {row['target']} {row['goal_id']}#{row['repeat'] + 1}: {verdict} "
        f"({row['status']}, {row['steps']} steps){tail}"
    )


def format_result(result: dict[str, Any]) -> str:
    """The scores for people."""
    lines = [
        f"eval {result['eval_id']} · {result['goal_set']['name']} · {len(result['runs'])}/{result['planned']} runs"
        + ("" if result["complete"] else " · INCOMPLETE (stopped)")
    ]
    header = f"{'provider/model':<38} {'pass':>6} {'95% CI':>13} {'pass@k':>7} {'pass^k':>7} {'steps':>5} {'tokens':>7}  flaky"
    lines += [header, "-" * len(header)]
    for s in result["summary"]:
        target = f"{s['provider']}/{s['model']}"[:38]
        ci = f"{_pct(s['ci_low'])}–{_pct(s['ci_high'])}"
        med_steps = "—" if s["median_steps"] is None else f"{s['median_steps']:g}"
        med_tokens = "—" if s["median_tokens"] is None else f"{s['median_tokens']:g}"
        lines.append(
            f"{target:<38} {_pct(s['pass_rate']):>6} {ci:>13} {_pct(s['pass_at_k']):>7} "
            f"{_pct(s['pass_all_k']):>7} {med_steps:>5} {med_tokens:>7}  {', '.join(s['flaky']) or '—'}"
        )
        extras = []
        if s.get("grounding_checked"):
            extras.append(f"ungrounded answers {_pct(s['ungrounded_rate'])} of {s['grounding_checked']}")
            extras.append(f"wrong but shown grounded: {s.get('wrong_but_grounded', 0)}")
        if s.get("honest_rate") is not None:
            extras.append(f"right or honestly not found/flagged {_pct(s['honest_rate'])}")
        if s.get("model_call_rate") is not None:
            extras.append(f"calls chosen by the model {_pct(s['model_call_rate'])}")
        if s.get("judge_disagreement") is not None:
            extras.append(f"judge disagreement {_pct(s['judge_disagreement'])}, {s['judge_uncertain']} uncertain")
        if extras:
            lines.append(f"{'':<38} " + " · ".join(extras))
    failing = [c for c in result["cells"] if c["total"] and c["passed"] < c["total"]]
    if failing:
        lines.append("")
        lines.append("failing goals:")
        for c in failing:
            checks = "; ".join(f"{f['check']}" for f in c["failed_checks"])[:150]
            lines.append(f"  {c['provider']}/{c['model']} {c['goal_id']}: {c['passed']}/{c['total']}  {checks}")
    if result.get("baseline"):
        m = result.get("mcnemar") or {}
        lines.append("")
        lines.append(
            f"against {result['baseline']}: {m.get('pass_to_fail', 0)} pass→fail, "
            f"{m.get('fail_to_pass', 0)} fail→pass of {m.get('paired', 0)} paired cells, "
            f"McNemar exact p = {result['mcnemar_p']:.3g}"
        )
        for f in result["flips"]:
            lines.append(f"  {f['flip']}: {f['provider']}/{f['model']} {f['goal_id']} ({f['before']} → {f['after']})")
    return "\n".join(lines)


def cmd_eval(args: argparse.Namespace, settings: Settings) -> int:
    # A retried tool failure is part of what an eval measures, not news: the progress line says it.
    dispatcher_log = logging.getLogger("agent_core.run.dispatcher")
    level = dispatcher_log.level
    dispatcher_log.setLevel(logging.ERROR)
    try:
        return _cmd_eval(args, settings)
    finally:
        dispatcher_log.setLevel(level)


def _cmd_eval(args: argparse.Namespace, settings: Settings) -> int:
    from agent_core.providers import default_provider_id, make_provider

    try:
        goal_set = load_goal_set(args.file)
    except GoalSetError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return EXIT_USAGE
    entries = getattr(args, "entries", None) or []
    if entries:
        targets = [Target(e["provider"], e.get("model")) for e in entries]
    elif goal_set.provider:
        targets = [Target(goal_set.provider, goal_set.model)]
    else:
        targets = [Target(default_provider_id())]
    if not 0 <= args.min_pass <= 1:
        sys.stderr.write("error: --min-pass is a share between 0 and 1 (e.g. 0.8)\n")
        return EXIT_USAGE
    judge = None
    judge_spec = (
        (args.judge, args.judge_model)
        if args.judge
        else ((goal_set.judge["provider"], goal_set.judge.get("model")) if goal_set.judge else (None, None))
    )
    cancel = threading.Event()
    try:
        if judge_spec[0] and judge_spec[0] != "none":
            judge = Judge(
                make_provider(judge_spec[0], settings=settings, model=judge_spec[1]),
                evals_dir(settings) / "judge_cache.json",
            )
        elif any(c.kind == "judge" for g in goal_set.goals for c in g.checks):
            sys.stderr.write("note: no judge given (--judge); judge checks show 'not judged'\n")
        run = EvalRun(
            goal_set,
            targets,
            settings=settings,
            repeats=args.repeats,
            concurrency=args.concurrency,
            judge=judge,
            cancel=cancel,
            baseline=args.baseline,
        )
        if args.baseline and args.baseline != "latest":
            from agent_core.evals.runner import load_result

            base = load_result(args.baseline, settings)
            if base["goal_set"]["name"] != goal_set.name:
                raise ValueError(
                    f"baseline {args.baseline} is an eval of {base['goal_set']['name']!r}, not of {goal_set.name!r}"
                )
    except (ProviderUnavailable, ValueError) as exc:
        return usage_error(exc)

    def report(p: Progress) -> None:
        if not args.quiet:
            sys.stderr.write(progress_line(p) + "\n")
            sys.stderr.flush()

    if not args.quiet:
        sys.stderr.write(
            f"eval {run.eval_id}: {len(goal_set.goals)} goals × {len(targets)} model(s) × "
            f"{args.repeats} = {run.total} runs\n"
        )
    interrupted = False
    try:
        result = run.run(report)
    except KeyboardInterrupt:
        interrupted = True
        result = run.result()
    out: TextIO = sys.stdout
    if args.json:
        out.write(json.dumps({k: result.get(k) for k in JSON_KEYS}, ensure_ascii=False, indent=2, default=str) + "\n")
    else:
        out.write(format_result(result) + "\n")
    path = evals_dir(settings) / f"{result['eval_id']}.json"
    sys.stderr.write(f"result: {path}\n")
    if interrupted or not result["complete"]:
        sys.stderr.write("the eval was stopped: the result keeps the runs that finished and is marked incomplete\n")
        return EXIT_FAILED
    below = [s for s in result["summary"] if (s["pass_rate"] if s["pass_rate"] is not None else 0.0) < args.min_pass]
    if below and args.min_pass > 0:
        names = ", ".join(f"{s['provider']}/{s['model']} {_pct(s['pass_rate'])}" for s in below)
        sys.stderr.write(f"below --min-pass {args.min_pass:g}: {names}\n")
        return EXIT_FAILED
    return EXIT_OK
