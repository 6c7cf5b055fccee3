"""Evals: goal-set validation, every check (tool_sequence modes table-driven), the statistics,
runs tagged and scored, determinism on offline, a flip against a baseline, the judge, Stop."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from agent_core.cli.main import main
from agent_core.evals.checks import check_run, sequence_matches, tool_errors, verdict
from agent_core.evals.goalset import GoalSetError, load_goal_set, parse_goal_set
from agent_core.evals.judge import Judge
from agent_core.evals.runner import EvalRun, Target, list_results, load_result, run_eval
from agent_core.evals.scores import mcnemar_exact, pass_all_k, pass_at_k, wilson
from agent_core.providers.scripted import ScriptedProvider
from agent_core.records.files import load_record
from agent_core.settings import Settings

REPO = Path(__file__).resolve().parent.parent

# ---------------------------------------------------------------- tool_sequence modes

SEQUENCE_CASES = [
    # strict: exactly these calls in this order
    ("strict", ["lookup", "calculator"], ["lookup", "calculator"], True),
    ("strict", [], [], True),
    ("strict", ["get_weather", "get_weather"], ["get_weather", "get_weather"], True),
    ("strict", ["calculator", "lookup"], ["lookup", "calculator"], False),
    ("strict", ["lookup", "lookup", "calculator"], ["lookup", "calculator"], False),
    ("strict", ["lookup"], ["lookup", "calculator"], False),
    ("strict", ["lookup"], [], False),
    # in_order: in this order, others allowed between
    ("in_order", ["lookup", "calculator"], ["lookup", "calculator"], True),
    ("in_order", ["lookup", "read_file", "search_documents", "calculator"], ["lookup", "calculator"], True),
    ("in_order", ["word_count", "lookup", "word_count", "calculator", "lookup"], ["lookup", "calculator"], True),
    ("in_order", ["anything"], [], True),
    ("in_order", ["calculator", "lookup"], ["lookup", "calculator"], False),
    ("in_order", ["lookup"], ["lookup", "calculator"], False),
    ("in_order", ["lookup", "calculator"], ["lookup", "lookup", "calculator"], False),
    ("in_order", [], ["lookup"], False),
    # any_order: the same multiset
    ("any_order", ["calculator", "lookup"], ["lookup", "calculator"], True),
    ("any_order", ["lookup", "calculator"], ["lookup", "calculator"], True),
    ("any_order", ["get_weather", "lookup", "get_weather"], ["get_weather", "get_weather", "lookup"], True),
    ("any_order", ["lookup", "calculator", "calculator"], ["lookup", "calculator"], False),
    ("any_order", ["lookup"], ["lookup", "calculator"], False),
    ("any_order", ["lookup", "word_count"], ["lookup", "calculator"], False),
    # subset: every call the run made is in the list
    ("subset", ["lookup"], ["lookup", "search_documents"], True),
    ("subset", [], ["lookup"], True),
    ("subset", ["lookup", "lookup", "search_documents"], ["lookup", "search_documents"], True),
    ("subset", ["lookup", "calculator"], ["lookup", "search_documents"], False),
    ("subset", ["search_web"], ["search_cached"], False),
    ("subset", ["lookup"], [], False),
    # superset: every listed tool was called, others allowed
    ("superset", ["lookup", "calculator", "word_count"], ["lookup", "calculator"], True),
    ("superset", ["calculator", "lookup"], ["lookup", "calculator"], True),
    ("superset", ["anything"], [], True),
    ("superset", ["lookup"], ["lookup", "calculator"], False),
    ("superset", [], ["lookup"], False),
    ("superset", ["word_count", "read_file"], ["read_file", "search_documents"], False),
]


@pytest.mark.parametrize(("mode", "calls", "expected", "ok"), SEQUENCE_CASES)
def test_tool_sequence_modes(mode: str, calls: list[str], expected: list[str], ok: bool) -> None:
    assert sequence_matches(calls, expected, mode) is ok


def test_every_mode_has_three_passing_and_three_failing_cases() -> None:
    for mode in ("strict", "in_order", "any_order", "subset", "superset"):
        outcomes = [ok for m, _, _, ok in SEQUENCE_CASES if m == mode]
        assert outcomes.count(True) >= 3 and outcomes.count(False) >= 3, mode


def _record(answer: str = "", calls: list[tuple[str, dict[str, Any], bool]] = (), **extra: Any) -> dict[str, Any]:
    tool_calls = [
        {"tool": t, "arguments": a, "success": ok, "attempts": [], "error_category": None if ok else "validation"}
        for t, a, ok in calls
    ]
    return {
        "answer": answer,
        "status": "completed",
        "steps": [{}, {}],
        "tool_calls": tool_calls,
        "cost_usd": 0.0,
        **extra,
    }


def _checks(yaml_checks: str) -> Any:
    return parse_goal_set(f"name: t\ngoals:\n  - id: g\n    goal: x\n    checks:\n{yaml_checks}").goals[0].checks


def test_sequence_check_reads_only_successful_calls() -> None:
    checks = _checks("      - tool_sequence: {tools: [lookup, calculator], mode: strict}\n")
    ok = _record(calls=[("lookup", {}, True), ("calculator", {"expression": "1+"}, False), ("calculator", {}, True)])
    assert check_run(checks, ok)[0]["passed"] is True
    bad = _record(calls=[("calculator", {}, True), ("lookup", {}, True)])
    result = check_run(checks, bad)[0]
    assert result["passed"] is False and "calculator, lookup" in result["detail"]


# ---------------------------------------------------------------- the other checks


@pytest.mark.parametrize(
    ("check", "record", "ok"),
    [
        ('answer_contains: ["19", "RAIN"]', _record("19°C, light rain"), True),
        ('answer_contains: ["19", "snow"]', _record("19°C, light rain"), False),
        ('answer_contains_any: ["°C", "celsius"]', _record("19 Celsius"), True),
        ('answer_contains_any: ["°C", "celsius"]', _record("66°F"), False),
        ('answer_not_contains: ["20°C"]', _record("19°C"), True),
        ('answer_not_contains: ["20°c"]', _record("It is 20°C"), False),
        ('answer_regex: "\\\\b19\\\\b"', _record("it is 19 degrees"), True),
        ('answer_regex: "\\\\b19\\\\b"', _record("it is 119 degrees"), False),
        ("answer_number: {value: 397.8, tolerance: 0.01}", _record("The total is 397.80 USD"), True),
        ("answer_number: {value: 1000}", _record("That is 1,000 units"), True),
        ("answer_number: {value: 397.8, tolerance: 0.01}", _record("The total is 398"), False),
        ("tool_used: get_weather", _record(calls=[("get_weather", {}, True)]), True),
        ("tool_used: get_weather", _record(calls=[("get_weather", {}, False)]), False),
        ("tool_used_any: [calculator, get_weather]", _record(calls=[("get_weather", {}, True)]), True),
        ("tool_used_any: [calculator, get_weather]", _record(calls=[("get_weather", {}, False)]), False),
        ("tool_used_any: [calculator, get_weather]", _record(calls=[("word_count", {}, True)]), False),
        ("tool_not_used: search_web", _record(calls=[("lookup", {}, True)]), True),
        ("tool_not_used: search_web", _record(calls=[("search_web", {}, False)]), False),
        (
            "tool_args: {tool: get_weather, args: {city: paris}}",
            _record(calls=[("get_weather", {"city": "Paris", "unit": "celsius"}, True)]),
            True,
        ),
        (
            "tool_args: {tool: get_weather, args: {city: Paris, unit: kelvin}}",
            _record(calls=[("get_weather", {"city": "Paris", "unit": "celsius"}, True)]),
            False,
        ),
        (
            "tool_args: {tool: calculator, args: {expression: '24 * 7'}}",
            _record(calls=[("calculator", {"expression": "24 * 7"}, False)]),
            False,
        ),
        ("max_tool_errors: 0", _record(calls=[("lookup", {}, True)]), True),
        ("max_tool_errors: 0", _record(calls=[("lookup", {}, False)]), False),
        ("max_tool_errors: {transient: 2}", _record(calls=[("lookup", {}, False)]), True),
        ("max_tool_errors: {validation: 0}", _record(calls=[("lookup", {}, False)]), False),
        ("max_steps: 2", _record(), True),
        ("max_steps: 1", _record(), False),
        ("max_cost_usd: 0.01", _record(), True),
        ("max_cost_usd: 0.01", _record(cost_usd=0.5), False),
        ("status: completed", _record(), True),
        ("status: [max_steps, error]", _record(), False),
        ("grounded: true", _record(grounding={"status": "grounded", "tools_used": [], "claims": []}), True),
        ("grounded: true", _record(grounding={"status": "no_claims", "tools_used": [], "claims": []}), True),
        ("grounded: true", _record(grounding={"status": "partly", "tools_used": [], "claims": []}), False),
        ("grounded: true", _record(), False),
    ],
)
def test_checks(check: str, record: dict[str, Any], ok: bool) -> None:
    (result,) = check_run(_checks(f"      - {check}\n"), record)
    assert result["passed"] is ok, result


def test_undecided_checks_count_neither_way() -> None:
    checks = _checks("      - judge: {rubric: polite}\n      - max_cost_usd: 1\n")
    results = check_run(checks, _record(cost_usd=None))
    assert [r["passed"] for r in results] == [None, None]
    assert results[0]["detail"] == "not judged" and results[1]["detail"] == "cost unknown"
    assert verdict(results) is None
    assert verdict([*results, {"check": "x", "kind": "status", "passed": True, "detail": ""}]) is True


def test_grounded_without_grounding_says_not_checked() -> None:
    (result,) = check_run(_checks("      - grounded: true\n"), _record())
    assert "not checked" in result["detail"]


def test_tool_errors_count_failed_attempts_by_category() -> None:
    record = {
        "tool_calls": [
            {"success": True, "attempts": [{"success": False, "error_category": "transient"}, {"success": True}]},
            {"success": False, "attempts": [], "error_category": "duplicate"},
            {"success": False, "cancelled": True, "attempts": [], "error_category": None},
        ]
    }
    assert tool_errors(record) == {"transient": 1, "duplicate": 1}


# ---------------------------------------------------------------- bad goal-set files

BAD_FILES = [
    (
        "name: x\ngoals:\n  - id: a\n    goal: hi: there\n    checks: []\n",
        "goal 'a': line 4, column 13",
        None,
        "YAML error: mapping values are not allowed here",
    ),
    (
        "name: x\ngoals:\n  - id: a\n    goal: hi\n    checks:\n      - answer_has: [1]\n",
        "goal 'a'",
        "checks[0].answer_has",
        "unknown check",
    ),
    (
        "name: x\ngoals:\n  - id: a\n    goal: hi\n    checks: [{status: completed}]\n  - id: a\n    goal: ho\n"
        "    checks: [{status: completed}]\n",
        "goal 'a'",
        "id",
        "duplicate id",
    ),
    (
        "name: x\ngoals:\n  - id: a\n    goal: hi\n    checks:\n      - max_steps: three\n",
        "goal 'a'",
        "checks[0].max_steps",
        "expected a whole number, got text",
    ),
    (
        "name: x\ngoals:\n  - id: a\n    goal: hi\n    checks:\n      - tool_sequence: {tools: [lookup], mode: sideways}\n",
        "goal 'a'",
        "checks[0].tool_sequence.mode",
        "unknown mode",
    ),
    (
        "name: x\ngoals:\n  - id: a\n    goal: hi\n    checks:\n      - tool_used: hammer\n",
        "goal 'a'",
        "checks[0].tool_used[0]",
        "unknown tool",
    ),
    (
        "name: x\ngoals:\n  - id: a\n    goal: 42\n    checks: [{status: completed}]\n",
        "goal 'a'",
        "goal",
        "expected text",
    ),
    ("name: x\ngoals:\n  - id: a\n    goal: hi\n", "goal 'a'", "checks", "is missing"),
    (
        "name: x\ngoals:\n  - id: a\n    goal: hi\n    checks:\n      - max_tool_errors: {flaky: 1}\n",
        "goal 'a'",
        "checks[0].max_tool_errors.flaky",
        "unknown field",
    ),
    (
        "name: x\ngoals:\n  - id: a\n    goal: hi\n    checks:\n      - answer_regex: '('\n",
        "goal 'a'",
        "checks[0].answer_regex",
        "not a valid regular expression",
    ),
    ("- just\n- a list\n", "top level", None, "expected a mapping"),
]


@pytest.mark.parametrize(("text", "place", "field", "message"), BAD_FILES)
def test_bad_goal_set_gets_one_line_naming_the_place(
    tmp_path: Path, text: str, place: str, field: str | None, message: str
) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(GoalSetError) as info:
        load_goal_set(path)
    line = str(info.value)
    assert "\n" not in line
    assert line.startswith(f"{path}: ")
    assert place in line and message in line
    if field:
        assert f": {field}: " in line


def test_bad_file_on_the_cli_runs_nothing(
    tmp_path: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("AGENT_DATA_DIR", str(data_dir))
    path = tmp_path / "bad.yaml"
    path.write_text(
        "name: x\ngoals:\n  - id: a\n    goal: hi\n    checks: [{status: done}]\n"
        "  - id: b\n    goal: 2+2\n    checks: [{status: completed}]\n",
        encoding="utf-8",
    )
    assert main(["eval", str(path), "--provider", "offline"]) == 2
    err = capsys.readouterr().err
    assert "goal 'a': checks[0].status[0]: unknown status 'done'" in err
    assert list((data_dir / "runs").iterdir()) == []
    assert not (data_dir / "evals").exists()


def test_cli_usage_errors(tmp_path: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_DATA_DIR", str(data_dir))
    seeds = str(REPO / "evals" / "seeds.yaml")
    assert main(["eval", str(tmp_path / "nope.yaml")]) == 2
    assert main(["eval", seeds, "--provider", "nonesuch"]) == 2
    assert main(["eval", seeds, "--provider", "scripted"]) == 2  # seeds has no scenario goals
    assert main(["eval", seeds, "--provider", "offline", "--baseline", "no-such-eval"]) == 2
    assert main(["eval", seeds, "--provider", "offline", "--repeats", "0"]) == 2
    with pytest.raises(SystemExit) as info:
        main(["eval", seeds, "--model", "m"])  # --model before any --provider
    assert info.value.code == 2
    assert list((data_dir / "runs").iterdir()) == []


def test_bundled_sets_load() -> None:
    seeds = load_goal_set(REPO / "evals" / "seeds.yaml")
    assert len(seeds.goals) >= 20
    assert any("단가" in g.goal for g in seeds.goals) and any("weather" in g.goal for g in seeds.goals)
    scenarios = load_goal_set(REPO / "evals" / "scenarios.yaml")
    assert {g.scenario for g in scenarios.goals} == {"tour", "retry_fallback", "duplicate", "malformed", "trimming"}
    assert scenarios.provider == "scripted"


# ---------------------------------------------------------------- statistics


def test_wilson_interval() -> None:
    low, high = wilson(0, 10)
    assert low == 0.0 and high == pytest.approx(0.2775, abs=1e-4)
    low, high = wilson(8, 10)
    assert (low, high) == (pytest.approx(0.4902, abs=1e-4), pytest.approx(0.9433, abs=1e-4))
    assert wilson(0, 0) == (0.0, 1.0)


def test_pass_at_k_and_pass_all_k() -> None:
    assert pass_at_k(5, 0, 3) == 0.0
    assert pass_at_k(5, 3, 3) == 1.0  # fewer than 3 failures: any 3 draws include a pass
    assert pass_at_k(5, 1, 2) == pytest.approx(1 - 6 / 10)
    assert pass_all_k(3, 3, 3) == 1.0 and pass_all_k(3, 2, 3) == 0.0
    assert pass_all_k(4, 2, 2) == pytest.approx(1 / 6)


def test_mcnemar_exact() -> None:
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(1, 0) == 1.0
    assert mcnemar_exact(6, 0) == pytest.approx(2 / 64)
    assert mcnemar_exact(10, 2) == pytest.approx(2 * (1 + 12 + 66) / 4096)
    assert mcnemar_exact(2, 10) == mcnemar_exact(10, 2)


# ---------------------------------------------------------------- running


def test_seeds_on_offline_twice_give_the_same_verdicts(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("AGENT_DATA_DIR", str(data_dir))
    args = ["eval", str(REPO / "evals" / "seeds.yaml"), "--provider", "offline", "--repeats", "2", "--json"]
    outputs = []
    for _ in range(2):
        assert main(args) == 0
        out = capsys.readouterr()
        assert "[1/" in out.err  # progress on stderr
        outputs.append(json.loads(out.out))
    first, second = outputs
    assert first["eval_id"] != second["eval_id"]
    assert first["goal_set"]["sha256"] == second["goal_set"]["sha256"]
    verdicts = [[(c["goal_id"], c["passed"], c["total"]) for c in o["cells"]] for o in outputs]
    assert verdicts[0] == verdicts[1]
    assert len(first["cells"]) == len(load_goal_set(REPO / "evals" / "seeds.yaml").goals)
    summary = first["summary"][0]
    assert set(summary) >= {"provider", "model", "pass_rate", "ci_low", "ci_high", "pass_at_k", "pass_all_k", "flaky"}
    assert set(first["cells"][0]) >= {"provider", "model", "goal_id", "run_ids", "passed", "total", "failed_checks"}
    # every run is a normal saved run, tagged with the eval and the goal
    cell = first["cells"][0]
    assert len(cell["run_ids"]) == 2
    record = load_record(data_dir / "runs" / f"{cell['run_ids'][0]}.json")
    assert record["eval_id"] == first["eval_id"] and record["eval_goal_id"] == cell["goal_id"]
    # --baseline latest compares with the newest earlier eval of the set: nothing flipped
    assert main([*args[:-1], "--repeats", "1", "--baseline", "latest", "--json"]) == 0
    third = json.loads(capsys.readouterr().out)
    assert third["baseline"] == second["eval_id"] and third["flips"] == [] and third["mcnemar_p"] == 1.0


def test_min_pass_sets_the_exit_code(
    tmp_path: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("AGENT_DATA_DIR", str(data_dir))
    path = tmp_path / "half.yaml"
    path.write_text(
        "name: half\ngoals:\n  - id: ok\n    goal: What is 2+3?\n    checks: [{answer_number: 5}]\n"
        "  - id: wrong\n    goal: What is 2+3?\n    checks: [{answer_number: 6}]\n",
        encoding="utf-8",
    )
    assert main(["eval", str(path), "--provider", "offline", "--min-pass", "0.5", "-q"]) == 0
    assert main(["eval", str(path), "--provider", "offline", "--min-pass", "0.8", "-q"]) == 1
    captured = capsys.readouterr()
    assert "50%" in captured.out and "below --min-pass 0.8" in captured.err
    assert "wrong: 0/1" in captured.out


FLIP_SET = """
name: flipset
goals:
  - id: add
    goal: "What is 2+3?"
    checks: [{answer_number: 5}, {tool_used: calculator}]
  - id: mul
    goal: "What is 4*5?"
    checks: [{answer_number: 20}, {tool_sequence: {tools: [calculator], mode: strict}}]
  - id: sub
    goal: "What is 9-4?"
    checks: [{answer_number: 5}]
"""


def _scripted_factory(broken: str | None) -> Any:
    answers = {"add": ("2+3", "5"), "mul": ("4*5", "20"), "sub": ("9-4", "5")}

    def factory(target: Target, goal: Any) -> ScriptedProvider:
        expression, value = answers[goal.id]
        if goal.id == broken:
            value = "7"
        return ScriptedProvider(
            [
                {"tool_calls": [{"name": "calculator", "arguments": {"expression": expression}}]},
                {"text": f"{expression} = {value}"},
            ]
        )

    return factory


def test_a_broken_goal_is_exactly_one_pass_to_fail_flip(settings: Settings) -> None:
    goal_set = parse_goal_set(FLIP_SET, "flip.yaml")
    target = [Target("offline", "scripted-1")]
    base = run_eval(goal_set, target, settings=settings, repeats=2, provider_factory=_scripted_factory(None))
    assert base["summary"][0]["pass_rate"] == 1.0
    after = run_eval(
        goal_set,
        target,
        settings=settings,
        repeats=2,
        provider_factory=_scripted_factory("mul"),
        baseline=base["eval_id"],
    )
    assert after["baseline"] == base["eval_id"]
    assert [(f["goal_id"], f["flip"]) for f in after["flips"]] == [("mul", "pass→fail")]
    assert after["flips"][0]["before"] == "2/2" and after["flips"][0]["after"] == "0/2"
    assert after["mcnemar"]["pass_to_fail"] == 1 and after["mcnemar"]["fail_to_pass"] == 0
    assert after["mcnemar_p"] == pytest.approx(1.0)  # one discordant pair proves nothing
    cell = next(c for c in after["cells"] if c["goal_id"] == "mul")
    assert cell["failed_checks"] == [{"check": "answer_number 20", "runs": 2}]
    assert after["summary"][0]["pass_rate"] == pytest.approx(4 / 6)
    # saved, listed newest first, and readable back
    assert [r["eval_id"] for r in list_results(settings, "flipset")] == [after["eval_id"], base["eval_id"]]
    assert load_result(after["eval_id"], settings)["flips"] == after["flips"]


class AlternatingJudge(ScriptedProvider):
    """A judge that answers PASS, FAIL, PASS, FAIL … whatever it is asked."""

    def __init__(self) -> None:
        super().__init__([{"text": "PASS" if i % 2 == 0 else "FAIL\nnot sure"} for i in range(100)], model="alt-judge")


JUDGE_SET = """
name: judged
goals:
  - id: a
    goal: "What is 2+3?"
    checks: [{judge: {rubric: "Says five.", samples: 2}}]
  - id: b
    goal: "What is 4*5?"
    checks: [{judge: {rubric: "Says twenty.", samples: 2}}]
"""


def test_judge_disagreement_uncertain_and_cache(settings: Settings) -> None:
    goal_set = parse_goal_set(JUDGE_SET, "judged.yaml")
    cache = settings.data_dir / "evals" / "judge_cache.json"
    judge = Judge(AlternatingJudge(), cache)
    first = run_eval(goal_set, [Target("offline")], settings=settings, judge=judge, concurrency=1)
    assert judge.calls == 4
    summary = first["summary"][0]
    assert summary["judge_disagreement"] == pytest.approx(0.5)
    assert summary["judge_uncertain"] == 2
    for run in first["runs"]:
        assert run["judge"]["uncertain"] is True and run["judge"]["votes"] == [True, False]
        assert run["checks"][0]["passed"] is None and run["checks"][0]["detail"].startswith("uncertain")
        assert run["passed"] is None  # a tie counts neither way
    again = Judge(AlternatingJudge(), cache)  # a new process: the cache is on disk
    second = run_eval(goal_set, [Target("offline")], settings=settings, judge=again)
    assert again.calls == 0
    assert all(run["judge"]["cached"] for run in second["runs"])
    assert second["summary"][0]["judge_disagreement"] == pytest.approx(0.5)
    # with no judge: "not judged", counted neither way
    third = run_eval(goal_set, [Target("offline")], settings=settings)
    assert {run["checks"][0]["detail"] for run in third["runs"]} == {"not judged (no judge available)"}
    assert third["summary"][0]["total"] == 0 and third["summary"][0]["pass_rate"] is None


def test_stop_keeps_what_finished_and_marks_the_result_incomplete(settings: Settings) -> None:
    goal_set = load_goal_set(REPO / "evals" / "seeds.yaml")
    cancel = threading.Event()
    seen: list[str] = []

    def on_progress(p: Any) -> None:
        seen.append(p.row["run_id"])
        if len(seen) == 3:
            cancel.set()

    run = EvalRun(goal_set, [Target("offline")], settings=settings, repeats=3, concurrency=1, cancel=cancel)
    result = run.run(on_progress)
    assert result["complete"] is False
    assert 3 <= len(result["runs"]) < result["planned"]
    assert {r["run_id"] for r in result["runs"]} == set(seen)
    saved = load_result(result["eval_id"], settings)
    assert saved["complete"] is False and len(saved["runs"]) == len(result["runs"])


def test_scenarios_pass_on_the_scripted_provider(settings: Settings) -> None:
    goal_set = load_goal_set(REPO / "evals" / "scenarios.yaml")
    result = run_eval(goal_set, [Target("scripted")], settings=settings)
    failing = [(c["goal_id"], c["failed_checks"]) for c in result["cells"] if c["passed"] < c["total"]]
    assert failing == []
    assert result["summary"][0]["pass_rate"] == 1.0
    record = load_record(settings.runs_dir / f"{result['cells'][0]['run_ids'][0]}.json")
    assert record["scripted"] is True and record["eval_goal_id"] == "tour"


def test_local_runs_take_turns(settings: Settings) -> None:
    """The local model answers one run at a time, whatever the concurrency."""
    goal_set = parse_goal_set(FLIP_SET, "flip.yaml")
    active = 0
    peak = 0
    lock = threading.Lock()

    class Slow(ScriptedProvider):
        instant = False

        def complete(self, request: Any) -> Any:
            nonlocal active, peak
            with lock:
                active += 1
                peak = max(peak, active)
            threading.Event().wait(0.02)
            with lock:
                active -= 1
            return super().complete(request)

    def factory(target: Target, goal: Any) -> ScriptedProvider:
        return Slow([{"text": "5"}])

    result = run_eval(
        goal_set, [Target("local")], settings=settings, repeats=2, concurrency=4, provider_factory=factory
    )
    assert len(result["runs"]) == 6 and peak == 1
    peak = 0
    run_eval(goal_set, [Target("offline")], settings=settings, repeats=2, concurrency=4, provider_factory=factory)
    assert peak > 1  # remote-style providers run in parallel


def test_ctrl_c_saves_what_finished_as_incomplete(settings: Settings) -> None:
    goal_set = load_goal_set(REPO / "evals" / "seeds.yaml")
    run = EvalRun(goal_set, [Target("offline")], settings=settings, concurrency=2)

    def on_progress(p: Any) -> None:
        if p.done == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run.run(on_progress)
    saved = load_result(run.eval_id, settings)
    assert saved["complete"] is False and 2 <= len(saved["runs"]) < saved["planned"]
    assert all(r["passed"] is not None for r in saved["runs"])


def test_ungrounded_rate_per_model(settings: Settings) -> None:
    from agent_core.evals.scores import cells_of, summary_of

    rows = [
        {
            "provider": "p",
            "model": "m",
            "goal_id": g,
            "run_id": g,
            "repeat": 0,
            "passed": True,
            "checks": [],
            "grounding_status": status,
        }
        for g, status in [("a", "grounded"), ("b", "ungrounded"), ("c", "partly"), ("d", "no_claims"), ("e", None)]
    ]
    (summary,) = summary_of(rows, cells_of(rows, list("abcde")), 1)
    assert summary["grounding_checked"] == 4 and summary["ungrounded_rate"] == pytest.approx(0.5)
