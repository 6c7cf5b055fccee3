"""``python -m agent_core eval FILE [--provider P [--model M]]... [--repeats K] [--concurrency N]
[--baseline EVAL_ID|latest] [--min-pass 0.8] [--judge P [--judge-model M]] [--json]
[--executor threads|ray [--address A] [--local-workers N]] [--rps N|P=N]...``, and
``eval --resume EVAL_ID`` (the cells an earlier eval is missing).

A progress line per finished run goes to stderr; stdout gets the scores (or the result as JSON).
Exit code: 0 when every provider reaches ``--min-pass``, 1 when one does not (or the eval was
stopped, or runs are missing), 2 for bad input (the goal-set file, an unknown provider, a
baseline that is not there, ``--executor ray`` without Ray).
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import threading
from typing import Any, TextIO

from agent_core.cli import approve as cli_approve
from agent_core.cli.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, ProviderEntries, usage_error
from agent_core.errors import ProviderUnavailable
from agent_core.evals.goalset import GoalSet, GoalSetError, load_goal_set
from agent_core.evals.judge import Judge
from agent_core.evals.runner import EvalRun, Progress, Target, evals_dir, load_result
from agent_core.scale.executor import EXECUTORS
from agent_core.settings import Settings

JSON_KEYS = (
    "eval_id",
    "goal_set",
    "complete",
    "planned",
    "repeats",
    "tool_mode",
    "targets",
    "executor",
    "rps",
    "resumed",
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
    ev.add_argument("file", nargs="?", help="goal-set YAML file (e.g. evals/seeds.yaml); none with --resume")
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
    ev.add_argument("--repeats", type=int, help="runs per goal and model (default 1)")
    ev.add_argument("--concurrency", type=int, default=4, help="runs at once on remote providers (default 4)")
    ev.add_argument("--baseline", help="an earlier eval id of the same set, or 'latest', to count flips against")
    ev.add_argument("--min-pass", type=float, default=0.0, help="exit 1 when a provider's pass rate is below this")
    ev.add_argument(
        "--judge", metavar="P", help="provider that judges 'judge' checks (default: the set's; none: not judged)"
    )
    ev.add_argument("--judge-model", metavar="M", help="model of the judge")
    ev.add_argument(
        "--resume", metavar="EVAL_ID", help="finish an earlier eval: run only its cells that have no finished run"
    )
    cli_approve.add_argument(ev, interactive=False)
    ev.add_argument(
        "--executor",
        choices=EXECUTORS,
        help="where the runs run: threads of this process, or Ray workers (default: EVAL_EXECUTOR, else threads)",
    )
    ev.add_argument(
        "--address",
        metavar="A",
        help="with --executor ray: auto (the running cluster) or ray://host:port (default: a local Ray, or RAY_ADDRESS)",
    )
    ev.add_argument(
        "--local-workers",
        type=int,
        default=1,
        metavar="N",
        help="with --executor ray: workers per local model, each with one loaded model (default 1)",
    )
    ev.add_argument(
        "--rps",
        action="append",
        metavar="N|P=N",
        help="requests per second, shared by every worker: N for each provider that calls a server, "
        "or P=N for provider P; repeat for several",
    )
    ev.add_argument(
        "--tools",
        choices=("live", "recorded"),
        default=None,
        help="live: run the real tools (default); recorded: answer each goal's tool calls from the run it was "
        "made from (from_run), so nothing runs and the check tests the model (a resumed eval keeps its own)",
    )
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
        f"({row['status']}, {row['steps']} steps{', recorded tools' if row.get('tool_mode') == 'recorded' else ''})"
        f"{tail}"
    )


def format_result(result: dict[str, Any]) -> str:
    """The scores for people."""
    lines = [
        f"eval {result['eval_id']} · {result['goal_set']['name']} · {len(result['runs'])}/{result['planned']} runs"
        + (" · tools: recorded" if result.get("tool_mode") == "recorded" else "")
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


def _what_to_run(args: argparse.Namespace) -> tuple[GoalSet, list[Target], dict[str, Any] | None]:
    """The goal set and targets of this eval (those of the saved eval with ``--resume``)."""
    from agent_core.providers import default_provider_id

    entries = getattr(args, "entries", None) or []
    if args.resume:
        if args.file or entries or args.repeats is not None:
            raise ValueError("--resume runs the eval as it was started: give no FILE, --provider or --repeats")
        saved = load_result(args.resume, args.settings)
        goal_set = load_goal_set(saved["goal_set"]["path"])
        return goal_set, [Target(t["provider"], t.get("model")) for t in saved["targets"]], saved
    if not args.file:
        raise ValueError("give a goal-set file (e.g. evals/seeds.yaml), or --resume EVAL_ID")
    goal_set = load_goal_set(args.file)
    if entries:
        targets = [Target(e["provider"], e.get("model")) for e in entries]
    elif goal_set.provider:
        targets = [Target(goal_set.provider, goal_set.model)]
    else:
        targets = [Target(default_provider_id())]
    return goal_set, targets, None


def _cmd_eval(args: argparse.Namespace, settings: Settings) -> int:
    from agent_core.providers import make_provider
    from agent_core.scale import make_executor, parse_rps

    args.settings = settings
    try:
        goal_set, targets, saved = _what_to_run(args)
    except GoalSetError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return EXIT_USAGE
    except ValueError as exc:
        return usage_error(exc)
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
        rates = parse_rps(args.rps or [], [t.provider for t in targets])
        if judge_spec[0] and judge_spec[0] != "none":
            judge = Judge(
                make_provider(judge_spec[0], settings=settings, model=judge_spec[1]),
                evals_dir(settings) / "judge_cache.json",
            )
        elif any(c.kind == "judge" for g in goal_set.goals for c in g.checks):
            sys.stderr.write("note: no judge given (--judge); judge checks show 'not judged'\n")
        if args.baseline and args.baseline != "latest":
            base = load_result(args.baseline, settings)
            if base["goal_set"]["name"] != goal_set.name:
                raise ValueError(
                    f"baseline {args.baseline} is an eval of {base['goal_set']['name']!r}, not of {goal_set.name!r}"
                )
        concurrency = args.concurrency if saved is None or args.concurrency != 4 else saved.get("concurrency") or 4
        executor = make_executor(
            args.executor, concurrency=concurrency, address=args.address, local_workers=args.local_workers
        )
        options: dict[str, Any] = {
            "concurrency": concurrency,
            "judge": judge,
            "cancel": cancel,
            "executor": executor,
            "rates": rates,
            "approve": args.approve,
        }
        if args.tools is not None or saved is None:
            options["tool_mode"] = args.tools or "live"
        if saved is not None:
            run = EvalRun.resume(args.resume, settings=settings, **options)
            if args.baseline:
                run.baseline = args.baseline
        else:
            run = EvalRun(
                goal_set,
                targets,
                settings=settings,
                repeats=1 if args.repeats is None else args.repeats,
                baseline=args.baseline,
                **options,
            )
    except (ProviderUnavailable, ValueError) as exc:
        return usage_error(exc)

    def report(p: Progress) -> None:
        if not args.quiet:
            sys.stderr.write(progress_line(p) + "\n")
            sys.stderr.flush()

    if not args.quiet:
        where = executor.describe()
        on = ", ".join(f"{k} {v}" for k, v in where.items() if k != "name")
        sys.stderr.write(
            f"eval {run.eval_id}: {len(goal_set.goals)} goals × {len(run.targets)} model(s) × "
            f"{run.repeats} = {run.total} runs"
            + (f", {run.resumed} already done" if saved is not None else "")
            + f" · executor {where['name']}{f' ({on})' if on else ''}\n"
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
        missing = result["planned"] - len(result["runs"])
        why = "the eval was stopped" if interrupted or cancel.is_set() else f"{missing} run(s) did not finish"
        sys.stderr.write(
            f"{why}: the result keeps the runs that finished and is marked incomplete; "
            f"finish it with: python -m agent_core eval --resume {result['eval_id']}\n"
        )
        return EXIT_FAILED
    below = [s for s in result["summary"] if (s["pass_rate"] if s["pass_rate"] is not None else 0.0) < args.min_pass]
    if below and args.min_pass > 0:
        names = ", ".join(f"{s['provider']}/{s['model']} {_pct(s['pass_rate'])}" for s in below)
        sys.stderr.write(f"below --min-pass {args.min_pass:g}: {names}\n")
        return EXIT_FAILED
    return EXIT_OK
