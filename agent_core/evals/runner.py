"""Running a goal set: goals × (provider, model) × repeats, each a normal saved run.

Runs go through :func:`agent_core.run.loop.run_agent` with ``record_extra`` = ``eval_id`` and
``eval_goal_id``, so they show in History like any other run. Remote providers run in parallel
up to ``concurrency``; the local model takes one run at a time (one loaded model per process,
shared by the whole eval). A goal with a ``scenario`` replays that demo scenario on the scripted
provider. Each run's tools get a random source seeded by (set, goal, repeat), so an eval on the
offline provider gives the same result every time.

Setting ``cancel`` (Stop, Ctrl-C) stops the runs in flight; what finished is kept and the result
is saved marked ``complete: false``. Results are JSON files under ``<data>/evals/``.
"""

from __future__ import annotations

import json
import logging
import os
import random
import secrets
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from agent_core.evals.checks import check_run, verdict
from agent_core.evals.goalset import Goal, GoalSet, as_mapping
from agent_core.evals.judge import Judge
from agent_core.evals.scores import cells_of, flips_of, summary_of, trend_of
from agent_core.providers import provider_spec
from agent_core.providers.base import Provider
from agent_core.records.files import load_record, utc_now
from agent_core.run.events import RunFinished
from agent_core.settings import Settings

log = logging.getLogger("agent_core.evals")

RESULT_VERSION = 1
SCRIPTED = "scripted"
_ONE_AT_A_TIME = threading.Lock()
"""A provider that serves one request at a time (``ProviderSpec.one_request_at_a_time``: the local
model) runs one eval run at a time, across every eval in this process."""


@dataclass(frozen=True)
class Target:
    """A (provider, model) column of the eval; ``model`` None is the provider's default."""

    provider: str
    model: str | None = None

    @property
    def label(self) -> str:
        return f"{self.provider}/{self.model}" if self.model else self.provider


@dataclass(frozen=True)
class Progress:
    """One finished (or skipped) run: what the live grid and the CLI progress line show."""

    done: int
    total: int
    row: dict[str, Any]


ProviderFactory = Callable[[Target, Goal], Provider]


def evals_dir(settings: Settings) -> Path:
    return Path(settings.data_dir) / "evals"


def new_eval_id(name: str) -> str:
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
    slug = "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in name.lower())[:30].strip("-") or "eval"
    return f"{stamp}-{slug}-{secrets.token_hex(2)}"


class _SharedProviders:
    """One provider object per (provider, model) for the whole eval (the local model loads once)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._made: dict[Target, Provider] = {}
        self._lock = threading.Lock()

    def __call__(self, target: Target, goal: Goal) -> Provider:
        from agent_core.providers import make_provider

        with self._lock:
            if target not in self._made:
                self._made[target] = make_provider(target.provider, settings=self.settings, model=target.model)
            return self._made[target]


def check_targets(goal_set: GoalSet, targets: Sequence[Target]) -> None:
    """ValueError (bad input) for a target that cannot run this set, before anything runs."""
    from agent_core.providers import PROVIDER_IDS

    for target in targets:
        if target.provider == SCRIPTED:
            plain = [g.id for g in goal_set.goals if not g.scenario]
            if plain:
                raise ValueError(
                    f"{goal_set.path}: goal {plain[0]!r}: the scripted provider only replays goals with a 'scenario'"
                )
        elif target.provider not in PROVIDER_IDS:
            raise ValueError(
                f"unknown provider {target.provider!r}; choose one of: {', '.join((*PROVIDER_IDS, SCRIPTED))}"
            )


def _row_of(record: dict[str, Any], target: Target, goal: Goal, repeat: int, judge: Judge | None) -> dict[str, Any]:
    results = check_run(goal.checks, record)
    judged = None
    for check, result in zip(goal.checks, results):
        if check.kind != "judge":
            continue
        if judge is None:
            result["detail"] = "not judged (no judge available)"
            continue
        if record.get("answer") is None:
            result["passed"], result["detail"] = False, "no answer to judge"
            continue
        outcome = judge.judge(check.arg["rubric"], str(record["answer"]), check.arg["samples"])
        judged = outcome
        result["passed"] = outcome["verdict"]
        votes = "".join("P" if v else "F" if v is False else "?" for v in outcome["votes"])
        label = "uncertain" if outcome["uncertain"] else "agreed"
        result["detail"] = f"{label} ({votes}){' · cached' if outcome['cached'] else ''}"
    usage = record.get("usage") or {}
    grounding = record.get("grounding")
    return {
        "target": target.label,
        "provider": target.provider,
        "model": target.model or str(record.get("model") or ""),
        "goal_id": goal.id,
        "repeat": repeat,
        "run_id": record.get("run_id"),
        "status": record.get("status"),
        "passed": verdict(results),
        "checks": results,
        "steps": len(record.get("steps") or []),
        "tool_calls": len(record.get("tool_calls") or []),
        "calls_by_model": sum(
            1 for c in record.get("tool_calls") or [] if isinstance(c, dict) and c.get("origin") == "model"
        ),
        "tokens": usage.get("total_tokens"),
        "cost_usd": record.get("cost_usd"),
        "duration_ms": record.get("duration_ms"),
        "grounding_status": grounding.get("status") if isinstance(grounding, dict) else None,
        "judge": judged,
        "answer": (record.get("answer") or "")[:500],
    }


class EvalRun:
    """One eval in progress; :meth:`run` drives it to the end (or to a Stop) and saves the result."""

    def __init__(
        self,
        goal_set: GoalSet,
        targets: Sequence[Target],
        *,
        settings: Settings,
        repeats: int = 1,
        concurrency: int = 4,
        judge: Judge | None = None,
        provider_factory: ProviderFactory | None = None,
        cancel: threading.Event | None = None,
        eval_id: str | None = None,
        baseline: str | None = None,
    ) -> None:
        if repeats < 1:
            raise ValueError("--repeats must be at least 1")
        if concurrency < 1:
            raise ValueError("--concurrency must be at least 1")
        if not targets:
            raise ValueError("no provider to run the eval on")
        check_targets(goal_set, targets)
        self.goal_set = goal_set
        self.targets = list(dict.fromkeys(targets))
        if goal_set.workspace is not None:  # the set's own documents, for every run of it
            settings = settings.replace(workspace=Path(goal_set.workspace))
        self.settings = settings
        self.repeats = repeats
        self.concurrency = concurrency
        self.judge = judge
        if provider_factory is None:
            shared = _SharedProviders(settings)
            for target in self.targets:  # an unavailable provider is bad input, before anything runs
                if target.provider != SCRIPTED:
                    shared(target, goal_set.goals[0])
            provider_factory = shared
        self.factory = provider_factory
        self.cancel = cancel or threading.Event()
        self.eval_id = eval_id or new_eval_id(goal_set.name)
        self.baseline = baseline
        self.rows: list[dict[str, Any]] = []
        self.started_at = utc_now()
        self.t0 = time.perf_counter()
        self._lock = threading.Lock()

    @property
    def total(self) -> int:
        return len(self.goal_set.goals) * len(self.targets) * self.repeats

    def jobs(self) -> list[tuple[Target, Goal, int]]:
        """Repeat by repeat, goal by goal, target by target: every cell gets its first run early."""
        return [(t, g, r) for r in range(self.repeats) for g in self.goal_set.goals for t in self.targets]

    def _one(self, target: Target, goal: Goal, repeat: int) -> dict[str, Any] | None:
        if self.cancel.is_set():
            return None
        spec = provider_spec(target.provider)
        if spec is not None and spec.one_request_at_a_time:
            with _ONE_AT_A_TIME:
                return self._run(target, goal, repeat)
        return self._run(target, goal, repeat)

    def _run(self, target: Target, goal: Goal, repeat: int) -> dict[str, Any] | None:
        from agent_core.run.prepare import prepare_run
        from agent_core.tools.builtins import build_default_registry

        if self.cancel.is_set():
            return None
        seed = f"{self.goal_set.name}:{goal.id}:{repeat}"
        extra = {"eval_id": self.eval_id, "eval_goal_id": goal.id}
        if target.provider == SCRIPTED:
            from agent_core.run import demo

            prepared = demo.prepare(goal.scenario or "", self.settings)
            prepared.record_extra.update(extra)
            provider: Provider = prepared.provider
        else:
            overrides = {"max_steps": goal.max_steps} if goal.max_steps else None
            provider = self.factory(target, goal)
            prepared = prepare_run(
                goal.goal,
                target.provider,
                settings=self.settings,
                overrides=overrides,
                tools=goal.tools,
                provider=provider,
                registry=build_default_registry(self.settings, rng=random.Random(seed)),
                rng=random.Random(seed),
                record_extra=extra,
            )
        finished: RunFinished | None = None
        for event in prepared.events(self.cancel):
            if isinstance(event, RunFinished):
                finished = event
        if finished is None or (finished.status == "cancelled" and self.cancel.is_set()):
            return None  # stopped by the eval's Stop: not scored
        try:
            record = load_record(finished.path)
        except Exception:  # noqa: BLE001 - the record could not be written: score what we know
            record = {
                "run_id": finished.run_id,
                "status": finished.status,
                "answer": finished.answer,
                "steps": [],
                "tool_calls": [],
                "model": provider.model,
            }
        return _row_of(record, target, goal, repeat, self.judge)

    def run(
        self, on_progress: Callable[[Progress], None] | None = None, *, on_tick: Callable[[], None] | None = None
    ) -> dict[str, Any]:
        """Run every job; returns (and saves) the result.

        ``on_progress`` is called in this thread as each run ends; ``on_tick`` at least every half
        second (a page redraws its clock there, which is also where Streamlit interrupts it).
        Anything that interrupts this thread (Ctrl-C, a page's Stop) stops the eval like
        ``cancel``: the runs in flight end as cancelled, what finished is saved in a result marked
        incomplete, and the interruption is raised again.
        """
        pool = ThreadPoolExecutor(max_workers=self.concurrency, thread_name_prefix=f"eval-{self.eval_id[-4:]}")
        futures: set[Future[dict[str, Any] | None]] = set()
        pending = iter(self.jobs())

        def submit() -> None:
            for job in pending:
                futures.add(pool.submit(self._one, *job))
                if len(futures) >= self.concurrency * 2:
                    return

        def collect(future: Future[dict[str, Any] | None], timeout: float | None = None) -> dict[str, Any] | None:
            try:
                row = future.result(timeout=timeout)
            except Exception as exc:  # noqa: BLE001 - one broken run must not end the eval
                log.error("eval run failed: %s: %s", type(exc).__name__, exc)
                return None
            if row is not None:
                with self._lock:
                    self.rows.append(row)
            return row

        try:
            submit()
            while futures:
                done, _ = wait(list(futures), timeout=0.5, return_when=FIRST_COMPLETED)
                for future in done:
                    futures.discard(future)
                    row = collect(future)
                    if row is not None and on_progress is not None:
                        on_progress(Progress(done=len(self.rows), total=self.total, row=row))
                if on_tick is not None:
                    on_tick()
                if not self.cancel.is_set():
                    submit()
        except BaseException:
            self.cancel.set()
            for future in list(futures):
                if not future.cancel():
                    collect(future, timeout=60)
            pool.shutdown(wait=False, cancel_futures=True)
            save_result(self.result(), self.settings)
            raise
        pool.shutdown(wait=True)
        result = self.result()
        save_result(result, self.settings)
        return result

    def result(self) -> dict[str, Any]:
        """The result as it stands (scores over the runs that finished)."""
        targets = {t.label: i for i, t in enumerate(self.targets)}
        goals = {g.id: i for i, g in enumerate(self.goal_set.goals)}
        rows = sorted(
            self.rows, key=lambda row: (targets.get(row["target"], 0), goals.get(row["goal_id"], 0), row["repeat"])
        )
        cells = cells_of(rows, [g.id for g in self.goal_set.goals])
        result: dict[str, Any] = {
            "version": RESULT_VERSION,
            "eval_id": self.eval_id,
            "goal_set": as_mapping(self.goal_set),
            "targets": [{"provider": t.provider, "model": t.model} for t in self.targets],
            "repeats": self.repeats,
            "concurrency": self.concurrency,
            "judge": self.judge.name if self.judge else None,
            "started_at": self.started_at,
            "finished_at": utc_now(),
            "duration_ms": round((time.perf_counter() - self.t0) * 1000, 3),
            "planned": self.total,
            "complete": len(rows) == self.total and not self.cancel.is_set(),
            "runs": rows,
            "cells": cells,
            "summary": summary_of(rows, cells, self.repeats),
            "baseline": None,
            "flips": [],
            "mcnemar_p": None,
            "mcnemar": None,
        }
        if self.baseline:
            compare_with_baseline(result, self.baseline, self.settings)
        return result


def compare_with_baseline(result: dict[str, Any], baseline: str, settings: Settings) -> None:
    """Fill ``baseline``, ``flips``, ``mcnemar_p`` and ``mcnemar`` of ``result`` (in place).
    ``baseline`` is an eval id or ``latest`` (the newest earlier eval of the same set)."""
    base = find_baseline(result, baseline, settings)
    if base is None:
        result["baseline"] = None
        return
    flips, test = flips_of(result["cells"], base.get("cells") or [])
    result.update(baseline=base["eval_id"], flips=flips, mcnemar_p=test["p"], mcnemar=test)


def find_baseline(result: dict[str, Any], baseline: str, settings: Settings) -> dict[str, Any] | None:
    name = result["goal_set"]["name"]
    if baseline == "latest":
        for past in list_results(settings):
            if past["eval_id"] != result["eval_id"] and past["goal_set"]["name"] == name and past.get("complete"):
                return past
        return None
    base = load_result(baseline, settings)
    if base["goal_set"]["name"] != name:
        raise ValueError(f"baseline {baseline} is an eval of {base['goal_set']['name']!r}, not of {name!r}")
    return base


def save_result(result: dict[str, Any], settings: Settings) -> Path:
    folder = evals_dir(settings)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{result['eval_id']}.json"
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(result, ensure_ascii=False, indent=1, default=str), encoding="utf-8")
    os.replace(tmp, path)
    return path


def load_result(eval_id: str, settings: Settings) -> dict[str, Any]:
    """One saved eval; ValueError with a plain message when there is none."""
    if not eval_id or "/" in eval_id or "\\" in eval_id or eval_id.startswith("."):
        raise ValueError(f"not an eval id: {eval_id!r}")
    path = evals_dir(settings) / f"{eval_id}.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError(f"no eval {eval_id!r} in {evals_dir(settings)}") from None
    except (OSError, ValueError) as exc:
        raise ValueError(f"eval {eval_id!r} cannot be read: {exc}") from None
    if not isinstance(data, dict) or "eval_id" not in data or "goal_set" not in data:
        raise ValueError(f"eval {eval_id!r} is not an eval result")
    return data


def _iter_results(settings: Settings) -> Iterator[dict[str, Any]]:
    folder = evals_dir(settings)
    if not folder.is_dir():
        return
    for path in folder.glob("*.json"):
        if path.name.startswith("judge_cache"):
            continue
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and "eval_id" in data and isinstance(data.get("goal_set"), dict):
            yield data


def list_results(settings: Settings, name: str | None = None) -> list[dict[str, Any]]:
    """Saved evals, newest first (optionally only those of goal set ``name``)."""
    results = [r for r in _iter_results(settings) if name is None or r["goal_set"].get("name") == name]
    return sorted(results, key=lambda r: (str(r.get("started_at") or ""), r["eval_id"]), reverse=True)


def trend(settings: Settings, name: str) -> list[dict[str, Any]]:
    """Pass rate per (provider, model) over the saved evals of one goal set, oldest first."""
    return trend_of(list_results(settings, name))


def run_eval(goal_set: GoalSet, targets: Sequence[Target], *, settings: Settings, **kwargs: Any) -> dict[str, Any]:
    """Run ``goal_set`` on ``targets`` and return the saved result (see :class:`EvalRun`)."""
    on_progress = kwargs.pop("on_progress", None)
    return EvalRun(goal_set, targets, settings=settings, **kwargs).run(on_progress)
