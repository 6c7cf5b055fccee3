"""Evals beyond one process: the executor interface, cell run ids, resume and shared rate limits.

The tests that need Ray start one local Ray for the module (127.0.0.1, ``num_cpus=2``, its files
under the test's tmp dir, an auth token of its own so ``~/.ray`` is not written) and skip, saying
why, when Ray is not installed (``pip install -r requirements-scale.txt``; CI installs it).
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import secrets
import shutil
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_core.evals.cells import Cell, Target, cell_run_id
from agent_core.evals.goalset import GoalSet, load_goal_set, parse_goal_set
from agent_core.evals.runner import EvalRun, load_result, save_result
from agent_core.providers.scripted import ScriptedProvider
from agent_core.records.files import load_record
from agent_core.scale import Buckets, ThreadsExecutor, parse_rps
from agent_core.scale.ray_executor import LOCAL_WORKER_ENV
from agent_core.settings import Settings
from tests.fake_llm_server import FakeLLMServer, chat_body, openai_error

REPO = Path(__file__).resolve().parent.parent
RUN_ID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
"""The record schema's run id (agent_core/records/run_record.py)."""


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    # No retry waits, and search_web failing half the time: the verdicts vary with the seeded
    # random source of each (goal, repeat), which is what must not depend on the executor.
    return Settings(data_dir=tmp_path / "data", retry_delays=(), search_web_failure_rate=0.5)


@pytest.fixture(scope="module")
def ray_local(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    temp = tmp_path_factory.mktemp("ray")
    saved = {k: os.environ.get(k) for k in ("RAY_TMPDIR", "RAY_AUTH_MODE", "RAY_AUTH_TOKEN")}
    # (before the import: Ray reads its auth mode once, when it is imported)
    os.environ.update(RAY_TMPDIR=str(temp), RAY_AUTH_MODE="token", RAY_AUTH_TOKEN=secrets.token_hex(16))
    try:
        ray = pytest.importorskip("ray", reason="Ray is not installed: pip install -r requirements-scale.txt")
    except BaseException:
        _restore(saved)
        raise
    ray.init(
        num_cpus=2,
        _node_ip_address="127.0.0.1",
        include_dashboard=False,
        log_to_driver=False,
        _temp_dir=str(temp),
        runtime_env={"env_vars": {"PYTHONPATH": str(REPO), **LOCAL_WORKER_ENV}},
    )
    try:
        yield ray
    finally:
        ray.shutdown()
        _restore(saved)


def _restore(saved: dict[str, str | None]) -> None:
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


def _ray_executor(**options: Any) -> Any:
    from agent_core.scale.ray_executor import RayExecutor

    return RayExecutor(**options)


@pytest.fixture(scope="module")
def ray_workers(ray_local: Any) -> Any:
    """One Ray executor (2 workers × 2 runs) for the module: its workers start once, as a page's would."""
    return _ray_executor(concurrency=4)


def _everyday(goals: int, folder: Path | None = None) -> GoalSet:
    """The first ``goals`` goals of evals/everyday.yaml (a file of their own in ``folder``, for a
    resume, which reads the set's file again)."""
    if folder is None:
        goal_set = load_goal_set(REPO / "evals" / "everyday.yaml")
        return dataclasses.replace(goal_set, goals=goal_set.goals[:goals])
    head, *blocks = (REPO / "evals" / "everyday.yaml").read_text(encoding="utf-8").split("\n  - id: ")
    path = folder / f"everyday-{goals}.yaml"
    path.write_text("\n  - id: ".join([head, *blocks[:goals]]) + "\n", encoding="utf-8")
    return load_goal_set(path)


def _verdicts(result: dict[str, Any]) -> dict[tuple[str, int], tuple[Any, ...]]:
    return {
        (r["goal_id"], r["repeat"]): (r["passed"], r["status"], r["steps"], r["tool_calls"], r["answer"])
        for r in result["runs"]
    }


def _eval_records(settings: Settings, eval_id: str) -> list[dict[str, Any]]:
    records = [load_record(p) for p in settings.runs_dir.glob("*.json")]
    return [r for r in records if r.get("eval_id") == eval_id]


# -- without Ray --------------------------------------------------------------------------------


def test_cell_run_ids_are_stable_valid_and_distinct() -> None:
    started = "2026-12-03T07:48:38.936+00:00"
    a = cell_run_id("e1", started, Target("offline"), "g", 0)
    assert a == cell_run_id("e1", started, Target("offline"), "g", 0)
    assert RUN_ID.match(a)
    others = {
        cell_run_id("e2", started, Target("offline"), "g", 0),
        cell_run_id("e1", started, Target("offline", "m"), "g", 0),
        cell_run_id("e1", started, Target("local"), "g", 0),
        cell_run_id("e1", started, Target("offline"), "h", 0),
        cell_run_id("e1", started, Target("offline"), "g", 1),
    }
    assert a not in others and len(others) == 5
    later = cell_run_id("e1", "2026-12-03T07:48:39.000+00:00", Target("offline"), "g", 0)
    assert later > a  # time-sortable like every other run id: by the eval's start


def test_buckets_space_calls_and_a_429_holds_every_caller() -> None:
    now = [100.0]
    buckets = Buckets({"openai": 4.0}, clock=lambda: now[0])
    assert [buckets.reserve("openai") for _ in range(3)] == [0.0, 0.25, 0.5]
    assert buckets.reserve("offline") == 0.0  # not limited
    buckets.hold("openai", 2.0)
    assert buckets.held("openai") == 2.0
    assert buckets.reserve("openai") == 2.0  # after the hold, not in the slot it had
    now[0] += 3
    assert buckets.held("openai") == 0.0


def test_parse_rps_names_providers_or_every_one_that_calls_a_server() -> None:
    assert parse_rps(["2"], ["openai", "offline", "local", "anthropic"]) == {"openai": 2.0, "anthropic": 2.0}
    assert parse_rps(["2", "openai=0.5"], ["openai", "anthropic"]) == {"openai": 0.5, "anthropic": 2.0}
    for bad in ("fast", "0", "openai=-1"):
        with pytest.raises(ValueError, match="--rps"):
            parse_rps([bad], ["openai"])


def test_stopped_eval_resumes_without_rerunning_or_duplicating(settings: Settings, tmp_path: Path) -> None:
    goal_set = _everyday(6, tmp_path)
    first = EvalRun(
        goal_set, [Target("offline")], settings=settings, repeats=3, executor=ThreadsExecutor(concurrency=2)
    )

    def stop_early(p: Any) -> None:
        if p.done == 7:
            first.cancel.set()

    stopped = first.run(stop_early)
    assert not stopped["complete"] and 7 <= len(stopped["runs"]) < 18
    before = {
        r["run_id"]: load_record(settings.runs_dir / f"{r['run_id']}.json")["started_at"] for r in stopped["runs"]
    }
    again = EvalRun.resume(first.eval_id, settings=settings, executor=ThreadsExecutor(concurrency=2))
    assert again.resumed >= len(stopped["runs"]) and len(again.jobs()) == 18 - again.resumed
    result = again.run()
    assert result["complete"] and result["eval_id"] == first.eval_id and len(result["runs"]) == 18
    assert {r["run_id"] for r in result["runs"]} == {c.run_id for c in again.cells()}
    records = _eval_records(settings, first.eval_id)
    assert len(records) == 18 and {r["run_id"] for r in records} == {c.run_id for c in again.cells()}
    assert all(load_record(settings.runs_dir / f"{rid}.json")["started_at"] == at for rid, at in before.items())
    assert load_result(first.eval_id, settings)["complete"]


def test_resume_refuses_a_goal_set_that_changed(settings: Settings, tmp_path: Path) -> None:
    path = tmp_path / "tiny.yaml"
    path.write_text("name: tiny\ngoals:\n  - id: a\n    goal: What is 2+3?\n    checks: [{answer_contains: ['5']}]\n")
    run = EvalRun(load_goal_set(path), [Target("offline")], settings=settings, executor=ThreadsExecutor())
    run.run()
    path.write_text(path.read_text().replace("2+3", "2+4"))
    with pytest.raises(ValueError, match="changed since"):
        EvalRun.resume(run.eval_id, settings=settings)


def test_executor_ray_without_ray_says_how_to_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from agent_core.cli.main import main

    monkeypatch.setitem(__import__("sys").modules, "ray", None)  # import ray -> ImportError
    monkeypatch.setenv("AGENT_DATA_DIR", str(tmp_path))
    code = main(["eval", str(REPO / "evals" / "seeds.yaml"), "--provider", "offline", "--executor", "ray"])
    assert code == 2
    assert "pip install -r requirements-scale.txt" in capsys.readouterr().err


def test_cli_resume_finishes_a_stopped_eval(
    settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from agent_core.cli.main import main

    monkeypatch.setenv("AGENT_DATA_DIR", str(settings.data_dir))
    monkeypatch.setenv("RETRY_DELAYS", "0")
    goal_set = _everyday(4, tmp_path)
    first = EvalRun(goal_set, [Target("offline")], settings=settings, repeats=2, executor=ThreadsExecutor())
    first.run(lambda p: first.cancel.set() if p.done == 3 else None)
    assert not load_result(first.eval_id, settings)["complete"]
    capsys.readouterr()
    assert main(["eval", "--resume", first.eval_id, "--json", "-q"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["eval_id"] == first.eval_id and out["complete"] and out["resumed"] >= 3
    assert out["executor"]["name"] == "threads"
    assert len(_eval_records(settings, first.eval_id)) == 8


def test_cli_scale_usage_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agent_core.cli.main import main

    monkeypatch.setenv("AGENT_DATA_DIR", str(tmp_path))
    seeds = str(REPO / "evals" / "seeds.yaml")
    assert main(["eval"]) == 2  # no file, no --resume
    assert main(["eval", "--resume", "no-such-eval"]) == 2
    assert main(["eval", seeds, "--resume", "no-such-eval"]) == 2
    assert main(["eval", seeds, "--provider", "offline", "--rps", "fast"]) == 2
    assert main(["eval", seeds, "--provider", "offline", "--executor", "ray", "--local-workers", "0"]) == 2
    monkeypatch.setenv("EVAL_EXECUTOR", "spark")
    assert main(["eval", seeds, "--provider", "offline"]) == 2
    assert not (tmp_path / "runs").exists() or list((tmp_path / "runs").iterdir()) == []


@pytest.mark.postgres
def test_resume_finds_the_runs_in_the_team_store(settings: Settings, tmp_path: Path, pg_url: str) -> None:
    settings = settings.replace(store_url=pg_url)
    run = EvalRun(_everyday(3, tmp_path), [Target("offline")], settings=settings, repeats=2, executor=ThreadsExecutor())
    run.run(lambda p: run.cancel.set() if p.done == 2 else None)
    done = {r["run_id"] for r in load_result(run.eval_id, settings)["runs"]}
    # Another machine's worker wrote them: this folder has neither the records nor the rows.
    shutil.rmtree(settings.runs_dir)
    saved = load_result(run.eval_id, settings)
    save_result({**saved, "runs": []}, settings)
    again = EvalRun.resume(run.eval_id, settings=settings, executor=ThreadsExecutor())
    assert again.resumed >= len(done) >= 2
    assert {r["run_id"] for r in again.rows} >= done
    assert again.run()["complete"]


# -- on Ray ---------------------------------------------------------------------------------------


def test_1000_cells_give_the_same_verdicts_on_threads_and_ray(ray_workers: Any, settings: Settings) -> None:
    goal_set, repeats = _everyday(25), 40
    t0 = time.perf_counter()
    threads = EvalRun(
        goal_set, [Target("offline")], settings=settings, repeats=repeats, executor=ThreadsExecutor(concurrency=4)
    ).run()
    t1 = time.perf_counter()
    on_ray = EvalRun(goal_set, [Target("offline")], settings=settings, repeats=repeats, executor=ray_workers).run()
    t2 = time.perf_counter()
    print(f"1,000 cells: threads {t1 - t0:.1f} s, ray {t2 - t1:.1f} s")
    assert threads["complete"] and on_ray["complete"] and len(on_ray["runs"]) == 1000
    assert on_ray["executor"]["name"] == "ray" and threads["executor"]["name"] == "threads"
    verdicts = _verdicts(threads)
    assert {v[0] for v in verdicts.values()} == {True, False}  # a mix, or the comparison proves little
    assert _verdicts(on_ray) == verdicts
    assert all(RUN_ID.match(r["run_id"]) for r in on_ray["runs"])
    assert len({r["owner"]["pid"] for r in _eval_records(settings, on_ray["eval_id"])}) >= 2  # in the workers


def test_killed_worker_then_resume_leaves_nothing_lost_or_twice(
    ray_workers: Any, settings: Settings, tmp_path: Path
) -> None:
    goal_set, repeats = _everyday(10, tmp_path), 4
    rates = {"offline": 12.0}  # paced, so the eval is still going when the worker is killed
    run = EvalRun(goal_set, [Target("offline")], settings=settings, repeats=repeats, executor=ray_workers, rates=rates)
    killed: list[int] = []

    def on_progress(p: Any) -> None:
        if p.done == 3 and not killed:  # kill -9 the worker that ran a finished cell
            pid = load_record(settings.runs_dir / f"{p.row['run_id']}.json")["owner"]["pid"]
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
        if p.done == 20:
            run.cancel.set()  # then the eval itself is stopped (Ctrl-C, a page's Stop)

    first = run.run(on_progress)
    assert killed and not first["complete"] and len(first["runs"]) < 40
    again = EvalRun.resume(run.eval_id, settings=settings, executor=ray_workers, rates=rates)
    result = again.run()
    cells = {c.run_id for c in again.cells()}
    assert result["complete"] and len(result["runs"]) == 40
    assert sorted(r["run_id"] for r in result["runs"]) == sorted(cells)  # 0 lost, 0 twice
    records = _eval_records(settings, run.eval_id)
    assert len(records) == 40 and {r["run_id"] for r in records} == cells
    assert all(r["status"] in ("completed", "max_steps", "error") for r in records)


class SlowLocal:
    """A stand-in for the local model (one request at a time): a scripted answer that takes a while."""

    def __call__(self, target: Target, goal: Any) -> ScriptedProvider:
        return ScriptedProvider([{"text": "5"}], turn_delay_s=0.3)


def test_local_model_runs_go_to_actors_of_their_own_one_run_at_a_time(ray_local: Any, settings: Settings) -> None:
    goal_set = parse_goal_set(
        "name: five\ngoals:\n"
        + "".join(f"  - id: g{i}\n    goal: Say five\n    checks: [{{answer_contains: ['5']}}]\n" for i in range(6)),
        "five.yaml",
    )
    executor = _ray_executor(local_workers=2, local_cpus=1)
    try:
        result = EvalRun(
            goal_set, [Target("local")], settings=settings, executor=executor, provider_factory=SlowLocal()
        ).run()
    finally:
        executor.close()
    assert result["complete"] and all(r["passed"] for r in result["runs"])
    records = _eval_records(settings, result["eval_id"])
    by_pid: dict[int, list[tuple[str, str]]] = {}
    for r in records:
        by_pid.setdefault(r["owner"]["pid"], []).append((r["started_at"], r["finished_at"]))
    assert len(by_pid) == 2  # two actors, each with its own model
    for spans in by_pid.values():
        spans.sort()
        assert all(end <= start for (_, end), (start, _) in zip(spans, spans[1:]))  # one at a time


class FakeServerProvider:
    """Cells on the OpenAI-compatible provider, sent to the fake server (made in each worker)."""

    def __init__(self, url: str) -> None:
        self.url = url

    def __call__(self, target: Target, goal: Any) -> Any:
        from agent_core.providers import make_provider

        return make_provider("openai-chat", settings=Settings(), model="fake", base_url=self.url)


@pytest.mark.parametrize("executor", ["threads", "ray"])
def test_a_429_storm_stays_within_rps(executor: str, settings: Settings, request: pytest.FixtureRequest) -> None:
    workers = request.getfixturevalue("ray_workers") if executor == "ray" else None
    rps, cells, storm = 5.0, 8, 4
    goal_set = parse_goal_set(
        "name: storm\ngoals:\n"
        + "".join(
            f"  - id: g{i}\n    goal: Say five\n    checks: [{{answer_contains: ['5']}}]\n" for i in range(cells)
        ),
        "storm.yaml",
    )
    settings = settings.replace(retry_delays=(0.1, 0.1, 0.1, 0.1), answer_check="off")
    with FakeLLMServer() as server:
        for i in range(cells + storm):
            if i % 3 == 1:  # every third answer is a 429 asking for a second's pause
                server.push(
                    openai_error("rate limited", type_="rate_limit_error"), status=429, headers={"retry-after": "1"}
                )
            else:
                server.push(chat_body(text="5"))
        chosen = ThreadsExecutor(concurrency=4) if workers is None else workers
        result = EvalRun(
            goal_set,
            [Target("openai-chat", "fake")],
            settings=settings,
            executor=chosen,
            rates=parse_rps([str(rps)], ["openai-chat"]),
            provider_factory=FakeServerProvider(server.url("/v1")),
        ).run()
        arrivals = [(r["at"], r["status"]) for r in server.requests]
    assert result["complete"] and all(r["passed"] for r in result["runs"])
    times = sorted(at for at, _ in arrivals)
    assert len(times) == cells + storm
    busiest = max(sum(1 for t in times if start <= t < start + 1.0) for start in times)
    assert busiest <= rps + 1, f"{busiest} requests within one second at --rps {rps:g}"  # +1: timer jitter
    for at, status in arrivals:  # after a 429's answer reached a worker, every worker waits its retry-after
        if status == 429:
            assert not [t for t in times if at + 0.3 < t < at + 0.95], "a request went out during a 429's hold"


def test_results_say_where_they_ran(settings: Settings) -> None:
    result = EvalRun(
        _everyday(1), [Target("offline")], settings=settings, executor=ThreadsExecutor(concurrency=3)
    ).run()
    saved = json.loads((settings.data_dir / "evals" / f"{result['eval_id']}.json").read_text())
    assert saved["executor"] == {"name": "threads", "concurrency": 3} and saved["resumed"] == 0
    assert isinstance(Cell(Target("offline"), "g", 0, "x").key, tuple)
