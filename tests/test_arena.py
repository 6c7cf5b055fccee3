"""Arena: runs go in parallel (wall time ≈ the slowest run), share an arena_id, and a budget stops
them all."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from agent_core.analysis.arena import ArenaEntry, prepare_arena, verdicts
from agent_core.providers.base import ModelRequest, ModelResponse
from agent_core.providers.scripted import ScriptedProvider
from agent_core.settings import Settings
from tests.record_schema import assert_valid_record

GOAL = "What is (24*7)+100?"
TURNS = [
    {"tool_calls": [{"name": "calculator", "arguments": {"expression": "(24*7)+100"}}]},
    {"tool_calls": [{"name": "lookup", "arguments": {"topic": "shipping"}}]},
    {"text": "(24*7)+100 = 268"},
]


class SlowScripted(ScriptedProvider):
    """A scripted model that takes ``delay`` seconds per turn (like a remote API)."""

    instant = False

    def __init__(self, turns: list[dict[str, Any]], delay: float, **kwargs: Any) -> None:
        super().__init__(turns, **kwargs)
        self.delay = delay

    def complete(self, request: ModelRequest) -> ModelResponse:
        time.sleep(self.delay)
        return super().complete(request)


class PricedScripted(ScriptedProvider):
    """A scripted model billed like gpt-4o (not one of the free providers)."""

    id = "fake-priced"


def _entries(slow_delay: float) -> list[ArenaEntry]:
    return [
        ArenaEntry("offline"),
        ArenaEntry("scripted", provider=ScriptedProvider([dict(t) for t in TURNS])),
        ArenaEntry("scripted-slow", provider=SlowScripted([dict(t) for t in TURNS], slow_delay, model="slow-1")),
    ]


def test_three_providers_run_in_parallel(settings: Settings) -> None:
    delay = 0.4
    singles = []
    for entry in _entries(delay):
        solo = prepare_arena(GOAL, [entry, ArenaEntry("offline")], settings=settings)
        t0 = time.perf_counter()
        solo.prepared[0].run_to_end()
        singles.append(time.perf_counter() - t0)
    arena = prepare_arena(GOAL, _entries(delay), settings=settings)
    t0 = time.perf_counter()
    records = arena.run_to_end()
    wall = time.perf_counter() - t0
    slowest = max(singles)
    assert slowest >= 3 * delay
    assert wall <= slowest * 1.2, (wall, singles)
    assert [r["status"] for r in records] == ["completed"] * 3
    assert {r["arena_id"] for r in records} == {arena.arena_id}
    for record in records:
        assert_valid_record(record)
    lines = verdicts(records)
    assert len(lines) == 3 and "fastest" not in lines[2] and "answered in 3 step(s)" in lines[2]


def test_budget_of_zero_stops_every_run(settings: Settings) -> None:
    long_script = [
        {
            "tool_calls": [{"name": "calculator", "arguments": {"expression": f"{n}+1"}}],
            "usage": {"input_tokens": 1000, "output_tokens": 500, "total_tokens": 1500},
        }
        for n in range(6)
    ]
    entries = [
        ArenaEntry("fake-priced", provider=PricedScripted([dict(t) for t in long_script], model="gpt-4o"))
        for _ in range(3)
    ]
    arena = prepare_arena(GOAL, entries, settings=settings, budget_usd=0.0)
    records = arena.run_to_end()
    assert arena.budget_hit and arena.spent > 0
    assert [r["status"] for r in records] == ["cancelled"] * 3
    assert all(r["error"]["type"] == "BudgetExceeded" and r["error"]["reason"] == "budget" for r in records)
    assert all(len(r["steps"]) <= 1 for r in records)
    assert all("budget used up" in line for line in verdicts(records))


def test_stop_stops_all_and_bad_input(settings: Settings) -> None:
    from agent_core.run.events import RunFinished, StepFinished

    arena = prepare_arena(GOAL, _entries(0.5), settings=settings)
    finished: dict[int, str] = {}
    for index, event in arena.events():
        if isinstance(event, StepFinished) and index == 1:
            arena.stop()
        if isinstance(event, RunFinished):
            finished[index] = event.status
    assert finished[2] == "cancelled" and arena.wall_s < 1.0  # the slow run stopped after its first turn at most
    with pytest.raises(ValueError, match="2 to 6"):
        prepare_arena(GOAL, [ArenaEntry("offline")], settings=settings)
    with pytest.raises(ValueError, match="budget"):
        prepare_arena(GOAL, [ArenaEntry("offline")] * 2, settings=settings, budget_usd=-1)


def test_cli_arena(settings: Settings, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    from agent_core.cli.main import main

    monkeypatch.setenv("AGENT_DATA_DIR", str(settings.data_dir))
    assert main(["arena", GOAL, "--provider", "offline", "--provider", "offline", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data["runs"]) == 2 and data["comparison"]["first_divergence"] is None
    assert len(data["verdicts"]) == 2 and data["arena_id"].startswith("arena-")
    assert main(["arena", GOAL, "--provider", "offline"]) == 2
    assert "2 to 6" in capsys.readouterr().err
    with pytest.raises(SystemExit) as stopped:  # argparse's own exit, as for any bad option
        main(["arena", GOAL, "--model", "x", "--provider", "offline"])
    assert stopped.value.code == 2 and "must follow the --provider" in capsys.readouterr().err
