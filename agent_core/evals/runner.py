"""Running a goal set: goals × (provider, model) × repeats, each a normal saved run.

Runs go through :func:`agent_core.run.loop.run_agent` with ``record_extra`` = ``eval_id`` and
``eval_goal_id``, so they show in History like any other run. Where they run is the executor's
business (:mod:`agent_core.scale`): threads of this process by default (remote providers in
parallel up to ``concurrency``, the local model one run at a time), or Ray workers. Each cell
(goal, provider, model, repeat) has a run id fixed by the eval (:mod:`agent_core.evals.cells`),
so a cell run twice writes one record, and :meth:`EvalRun.resume` runs only what is missing. A
goal with a ``scenario`` replays that demo scenario on the scripted provider. Each run's tools get
a random source seeded by (set, goal, repeat), so an eval on the offline provider gives the same
result every time, on any executor.

Setting ``cancel`` (Stop, Ctrl-C) stops the runs in flight; what finished is kept and the result
is saved marked ``complete: false``. Results are JSON files under ``<data>/evals/``, saved when the
eval starts, every few seconds while it runs, and at the end.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from agent_core.evals.cells import (
    SCRIPTED,
    Cell,
    CellWork,
    ProviderFactory,
    SharedProviders,
    Target,
    cell_run_id,
    finished_records,
    row_of,
)
from agent_core.evals.goalset import Goal, GoalSet, as_mapping, load_goal_set
from agent_core.evals.judge import Judge
from agent_core.evals.scores import cells_of, flips_of, summary_of, trend_of
from agent_core.providers import provider_spec
from agent_core.records.files import utc_now
from agent_core.scale.choose import make_executor
from agent_core.scale.executor import Executor, Task
from agent_core.settings import Settings

log = logging.getLogger("agent_core.evals")

RESULT_VERSION = 1
SAVE_EVERY_S = 5.0
"""While an eval runs, its result is saved this often (a killed eval can be resumed from it)."""


@dataclass(frozen=True)
class Progress:
    """One finished (or skipped) run: what the live grid and the CLI progress line show."""

    done: int
    total: int
    row: dict[str, Any]


def evals_dir(settings: Settings) -> Path:
    return Path(settings.data_dir) / "evals"


def new_eval_id(name: str) -> str:
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
    slug = "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in name.lower())[:30].strip("-") or "eval"
    return f"{stamp}-{slug}-{secrets.token_hex(2)}"


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


class EvalRun:
    """One eval in progress; :meth:`run` drives it to the end (or to a Stop) and saves the result.

    ``executor`` (default: :func:`agent_core.scale.make_executor`, i.e. ``EVAL_EXECUTOR`` or
    threads) runs the cells; ``rates`` caps the requests per second of each named provider,
    across every worker (:mod:`agent_core.scale.ratelimit`).
    """

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
        executor: Executor | None = None,
        rates: Mapping[str, float] | None = None,
        started_at: str | None = None,
        tool_mode: str = "live",
        approve: str = "none",
    ) -> None:
        from agent_core.evals import frozen

        if tool_mode not in frozen.TOOL_MODES:
            raise ValueError(f"--tools must be one of {', '.join(frozen.TOOL_MODES)} (got {tool_mode!r})")
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
        self.tool_mode = tool_mode
        self.sources = frozen.sources(goal_set, settings) if tool_mode == "recorded" else {}
        """Recorded tool calls by goal id (``--tools recorded``): what each goal's tools answer from."""
        self.repeats = repeats
        self.concurrency = concurrency
        self.judge = judge
        shared = None
        if provider_factory is None:
            shared = SharedProviders(settings)
            for target in self.targets:  # an unavailable provider is bad input, before anything runs
                if target.provider != SCRIPTED:
                    shared(target, goal_set.goals[0])
        self.factory = provider_factory
        self.executor = executor if executor is not None else make_executor(concurrency=concurrency)
        self.rates = dict(rates or {})
        self.cancel = cancel or threading.Event()
        self.eval_id = eval_id or new_eval_id(goal_set.name)
        self.baseline = baseline
        self.started_at = started_at or utc_now()
        self.work = CellWork(
            goal_set,
            self._portable(settings),
            self.eval_id,
            provider_factory=provider_factory,
            providers=shared,
            score=judge is None,  # scored where it ran; a judge (not sent to workers) scores here
            sources=self.sources,
            approve=approve,
        )
        self._rows: dict[tuple[str, str, int], dict[str, Any]] = {}
        self.resumed = 0
        """Cells a resume found done (in the saved result or as a finished record)."""
        self.t0 = time.perf_counter()
        self._lock = threading.Lock()
        self._saved_at = 0.0

    def _portable(self, settings: Settings) -> Settings:
        """The settings a worker elsewhere gets: its folders as absolute paths (a Ray worker does
        not run in this directory)."""
        if self.executor.name == "threads":
            return settings
        workspace = settings.workspace.resolve() if settings.workspace is not None else None
        return settings.replace(data_dir=Path(settings.data_dir).resolve(), workspace=workspace)

    @classmethod
    def resume(
        cls,
        eval_id: str,
        *,
        settings: Settings,
        **options: Any,
    ) -> EvalRun:
        """The saved eval ``eval_id``, ready to run what it is missing: same goal set (its file,
        unchanged), targets, repeats and run ids. A cell counts as done when the result has its
        row or its record ended (folder or team store). ValueError when it cannot be resumed."""
        saved = load_result(eval_id, settings)
        info = saved["goal_set"]
        try:
            goal_set = load_goal_set(info["path"])
        except (OSError, ValueError) as exc:
            raise ValueError(f"eval {eval_id} cannot be resumed: its goal set cannot be read: {exc}") from None
        if goal_set.sha256 != info.get("sha256"):
            raise ValueError(f"eval {eval_id} cannot be resumed: {info['path']} changed since the eval started")
        targets = [Target(t["provider"], t.get("model")) for t in saved["targets"]]
        options.setdefault("concurrency", saved.get("concurrency") or 4)
        options.setdefault("tool_mode", saved.get("tool_mode") or "live")
        run = cls(
            goal_set,
            targets,
            settings=settings,
            repeats=int(saved["repeats"]),
            eval_id=saved["eval_id"],
            started_at=saved["started_at"],
            baseline=saved.get("baseline"),
            **options,
        )
        planned = {cell.key: cell for cell in run.cells()}
        for row in saved.get("runs") or []:
            key = (row["target"], row["goal_id"], row["repeat"])
            if key in planned:
                run._rows[key] = row
        todo = [cell for key, cell in planned.items() if key not in run._rows]
        records = finished_records([cell.run_id for cell in todo], run.settings)
        for cell in todo:
            if cell.run_id in records:
                run._rows[cell.key] = run._score(cell, records[cell.run_id])
        run.resumed = len(run._rows)
        return run

    @property
    def rows(self) -> list[dict[str, Any]]:
        with self._lock:
            return list(self._rows.values())

    @property
    def total(self) -> int:
        return len(self.goal_set.goals) * len(self.targets) * self.repeats

    def cells(self) -> list[Cell]:
        """Repeat by repeat, goal by goal, target by target: every cell gets its first run early."""
        return [
            Cell(t, g.id, r, cell_run_id(self.eval_id, self.started_at, t, g.id, r))
            for r in range(self.repeats)
            for g in self.goal_set.goals
            for t in self.targets
        ]

    def jobs(self) -> list[tuple[Target, Goal, int]]:
        """The cells still to run, as (target, goal, repeat)."""
        return [(c.target, self.goal_set.goal(c.goal_id), c.repeat) for c in self._missing()]

    def _missing(self) -> list[Cell]:
        with self._lock:
            return [cell for cell in self.cells() if cell.key not in self._rows]

    def _task(self, cell: Cell) -> Task:
        spec = provider_spec(cell.target.provider)
        pool = cell.target.label if spec is not None and spec.one_request_at_a_time else None
        return Task(key=cell.run_id, payload=cell, pool=pool)

    def _score(self, cell: Cell, record: dict[str, Any]) -> dict[str, Any]:
        return row_of(record, cell.target, self.goal_set.goal(cell.goal_id), cell.repeat, self.judge)

    def _finish(self, task: Task, record: Any) -> dict[str, Any]:
        return self._score(task.payload, record)

    def _save(self, *, every: float = 0.0) -> None:
        now = time.monotonic()
        if every and now - self._saved_at < every:
            return
        self._saved_at = now
        try:
            save_result(self.result(), self.settings)
        except OSError as exc:  # the runs are saved; only the summary could not be
            log.warning("eval %s: cannot save the result: %s", self.eval_id, exc)

    def run(
        self, on_progress: Callable[[Progress], None] | None = None, *, on_tick: Callable[[], None] | None = None
    ) -> dict[str, Any]:
        """Run every missing cell; returns (and saves) the result.

        ``on_progress`` is called in this thread as each run ends; ``on_tick`` at least every half
        second (a page redraws its clock there, which is also where Streamlit interrupts it).
        Anything that interrupts this thread (Ctrl-C, a page's Stop) stops the eval like
        ``cancel``: the runs in flight end as cancelled, what finished is saved in a result marked
        incomplete, and the interruption is raised again.
        """
        self._save()
        stream = self.executor.stream(
            (self._task(cell) for cell in self._missing()),
            self.work,
            cancel=self.cancel,
            finish=None if self.work.score else self._finish,
            rates=self.rates,
        )

        def collect(outcome: Any) -> dict[str, Any] | None:
            if outcome.error is not None:
                log.error("eval run failed: %s", outcome.error)
                return None
            row = outcome.value
            if row is None:
                return None
            with self._lock:
                self._rows[outcome.task.payload.key] = row  # a cell run twice counts once
                done = len(self._rows)
            if on_progress is not None:
                on_progress(Progress(done=done, total=self.total, row=row))
            return row

        try:
            for outcome in stream:
                if outcome is not None:
                    collect(outcome)
                    continue
                if on_tick is not None:
                    on_tick()
                self._save(every=SAVE_EVERY_S)
        except BaseException:
            self.cancel.set()
            try:
                for outcome in stream:  # the runs in flight end as cancelled; keep what finished
                    if outcome is not None and outcome.error is None and outcome.value is not None:
                        with self._lock:
                            self._rows[outcome.task.payload.key] = outcome.value
            except BaseException:  # noqa: BLE001 - (the stream had already stopped) the first one is raised
                pass
            self._save()
            raise
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
            "tool_mode": self.tool_mode,
            "concurrency": self.concurrency,
            "executor": self.executor.describe(),
            "rps": self.rates or None,
            "judge": self.judge.name if self.judge else None,
            "started_at": self.started_at,
            "finished_at": utc_now(),
            "duration_ms": round((time.perf_counter() - self.t0) * 1000, 3),
            "planned": self.total,
            "resumed": self.resumed,
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
