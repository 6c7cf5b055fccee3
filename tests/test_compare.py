"""Trajectory, alignment and first divergence: a property test over random trajectories, and real
offline runs compared."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from agent_core.analysis.compare import compare, first_divergence, lcs_pairs
from agent_core.analysis.trajectory import signature, trajectory
from agent_core.context import canonical_arguments
from agent_core.providers.offline import create as offline_create
from agent_core.providers.scripted import ScriptedProvider
from agent_core.run.loop import run_to_end
from agent_core.settings import Settings
from agent_core.tools.builtins import build_default_registry

TOOLS = ["read_file", "search_documents", "calculator", "lookup"]
WORDS = ["a", "b", "c", "d"]
RESULTS = ["r1", "r2", "r3"]

# --- a synthetic record from a list of events ---------------------------------------------------------

Spec = list[dict[str, Any]]


def make_record(run_id: str, events: Spec, max_blocks: list[int]) -> dict[str, Any]:
    """A record whose event i is made in step i+1 (one call per step); ``max_blocks[i]`` is the
    context-block limit at that step."""
    steps, calls = [], []
    for pos, event in enumerate(events):
        if event["kind"] == "stop":
            break
        limit = max_blocks[pos]
        sent = list(range(max(0, pos - limit), pos))
        trimmed = list(range(max(0, pos - limit)))
        step = {"index": pos + 1, "blocks_sent": sent, "blocks_trimmed": trimmed, "tool_call_ids": [], "text": ""}
        if event["kind"] == "tool":
            call_id = f"c{pos}"
            step["tool_call_ids"] = [call_id]
            calls.append(
                {
                    "call_id": call_id,
                    "step": pos + 1,
                    "tool": event["tool"],
                    "arguments": event["args"],
                    "output": event["result"],
                    "success": True,
                    "attempts": [{"attempt": 1}],
                }
            )
        steps.append(step)
    last = events[-1]
    return {
        "run_id": run_id,
        "goal": "g",
        "provider": "offline",
        "model": "m",
        "status": "completed" if last["kind"] == "answer" else last["status"],
        "answer": last.get("text") if last["kind"] == "answer" else None,
        "error": None if last["kind"] == "answer" else {"type": last["status"], "message": "stopped"},
        "steps": steps,
        "tool_calls": calls,
        "usage": {"total_tokens": 10 * len(steps)},
    }


tool_event = st.fixed_dictionaries(
    {
        "kind": st.just("tool"),
        "tool": st.sampled_from(TOOLS),
        "args": st.fixed_dictionaries({"q": st.sampled_from(WORDS)}),
        "result": st.sampled_from(RESULTS),
    }
)
terminal = st.one_of(
    st.fixed_dictionaries({"kind": st.just("answer"), "text": st.sampled_from(["yes", "no"])}),
    st.fixed_dictionaries({"kind": st.just("stop"), "status": st.sampled_from(["max_steps", "error", "cancelled"])}),
)
MUTATIONS = ["swap_tool", "arguments", "result", "insert", "delete", "early_stop", "answer", "context"]


def _expected_kind_cause(a: dict[str, Any], b: dict[str, Any]) -> str:
    """The oracle for an event put where another one was (insert / delete)."""
    if a["kind"] != b["kind"]:
        return "stopped" if "stop" in (a["kind"], b["kind"]) else "different_answer"
    if a["kind"] == "tool":
        if a["tool"] != b["tool"]:
            return "different_tool"
        if a["args"] != b["args"]:
            return "different_arguments"
        return "different_result"
    return "stopped" if a["kind"] == "stop" else "different_answer"


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(
    body=st.lists(tool_event, min_size=0, max_size=59),
    end=terminal,
    mutation=st.sampled_from(MUTATIONS),
    data=st.data(),
)
def test_first_divergence_names_the_mutated_step_and_cause(
    body: Spec, end: dict[str, Any], mutation: str, data: st.DataObject
) -> None:
    a_events = body + [end]
    n = len(a_events)
    k = data.draw(st.integers(min_value=0, max_value=n - 1), label="k")
    b_events = copy.deepcopy(a_events)
    a_limits = [3] * (n + 1)
    b_limits = [3] * (n + 1)
    target = a_events[k]
    if mutation == "swap_tool":
        assume(target["kind"] == "tool")
        b_events[k]["tool"] = data.draw(st.sampled_from([t for t in TOOLS if t != target["tool"]]))
        expected = "different_tool"
    elif mutation == "arguments":
        assume(target["kind"] == "tool")
        b_events[k]["args"] = {"q": data.draw(st.sampled_from([w for w in WORDS if w != target["args"]["q"]]))}
        expected = "different_arguments"
    elif mutation == "result":
        assume(target["kind"] == "tool")
        b_events[k]["result"] = data.draw(st.sampled_from([r for r in RESULTS if r != target["result"]]))
        expected = "different_result"
    elif mutation == "insert":
        new = data.draw(tool_event)
        assume(not (target["kind"] == "tool" and new == target))
        b_events.insert(k, new)
        expected = _expected_kind_cause(target, new)
    elif mutation == "delete":
        assume(target["kind"] == "tool")
        following = a_events[k + 1]
        assume(following != target)
        del b_events[k]
        expected = _expected_kind_cause(target, following)
    elif mutation == "early_stop":
        status = data.draw(st.sampled_from(["max_steps", "error", "cancelled"]))
        assume(not (target["kind"] == "stop" and target["status"] == status))
        b_events = b_events[:k] + [{"kind": "stop", "status": status}]
        expected = "stopped"
    elif mutation == "answer":
        assume(target["kind"] == "answer")
        b_events[k]["text"] = target["text"] + " (changed)"
        expected = "different_answer"
    else:  # context: from event k on, run B keeps only 1 block (A keeps 3) — visible once k ≥ 2
        assume(k >= 2 and target["kind"] != "stop")
        b_limits = [3] * k + [1] * (n + 1 - k)
        expected = "different_context"
    record_a = make_record("run-a", a_events, a_limits)
    record_b = make_record("run-b", b_events, b_limits)
    found = first_divergence(trajectory(record_a), trajectory(record_b))
    assert found is not None, (mutation, k)
    assert (found.step, found.cause) == (k + 1, expected), (mutation, k, found)
    assert f"step {k + 1}" in found.sentence or (k == 0 and "first step" in found.sentence)
    # The same comparison from the other side names the same step.
    back = first_divergence(trajectory(record_b), trajectory(record_a))
    assert back is not None and back.step == k + 1
    # Identical runs (another id) do not diverge.
    twin = copy.deepcopy(record_a)
    twin["run_id"] = "run-twin"
    assert first_divergence(trajectory(record_a), trajectory(twin)) is None


def test_signature_is_canonical() -> None:
    assert signature("t", {"b": 1, "a": "x  y\n"}) == signature("t", '{"a": "x y", "b": 1.0}')
    assert signature("t", {"a": 1}) != signature("t", {"a": 2})
    assert signature("t", {"a": 1}, ignore_arguments=True) == "t"
    assert canonical_arguments("not json  at all") == '"not json at all"'


def test_lcs_alignment_marks_gaps() -> None:
    pairs = lcs_pairs(["a", "b", "c", "d"], ["a", "c", "x", "d"])
    assert pairs == [(0, 0), (1, None), (2, 1), (None, 2), (3, 3)]


def _run(goal: str, settings: Settings, provider: Any = None) -> dict[str, Any]:
    return run_to_end(
        goal,
        provider=provider or offline_create(model=None, base_url=None, settings=settings),
        registry=build_default_registry(settings),
        settings=settings,
    )


def test_compare_real_runs_header_alignment_and_sentence(settings: Settings) -> None:
    a = _run("What is (24*7)+100?", settings)
    b = _run("What is (24*7)+100?", settings)
    scripted = ScriptedProvider(
        [{"tool_calls": [{"name": "lookup", "arguments": {"topic": "shipping"}}]}, {"text": "I looked up shipping."}]
    )
    c = _run("What is (24*7)+100?", settings, scripted)
    result = compare([a, b, c])
    data = result.as_dict()
    assert data["baseline"] == a["run_id"]
    runs = {r["run_id"]: r for r in data["runs"]}
    assert runs[b["run_id"]]["first_divergence"] is None
    assert runs[c["run_id"]]["deltas"]["provider"] == "differs"
    first = data["first_divergence"]
    assert first["run_id"] == c["run_id"] and first["step"] == 1 and first["cause"] == "different_tool"
    assert "run C called lookup instead of calculator" in first["sentence"]
    # Aligned: the calculator row has A and B, and C's lookup is a gap row of its own.
    rows = data["alignment"]
    assert any(r["cells"][a["run_id"]] and r["cells"][c["run_id"]] is None for r in rows)
    assert any(r["cells"][a["run_id"]] is None and r["cells"][c["run_id"]]["tool"] == "lookup" for r in rows)
    # Any run can be the baseline.
    again = compare([a, b, c], baseline=c["run_id"]).as_dict()
    assert again["baseline"] == c["run_id"] and again["first_divergence"]["step"] == 1


def test_cli_compare_json_and_bad_input(settings: Settings, monkeypatch: Any, capsys: Any) -> None:
    import json

    from agent_core.cli.main import main

    monkeypatch.setenv("AGENT_DATA_DIR", str(settings.data_dir))
    ids = [
        _run(goal, settings)["run_id"]
        for goal in ("What is 2+2?", "What is 2+2?", "Search the documents for refund policy")
    ]
    assert main(["compare", *ids, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) >= {"baseline", "runs", "alignment", "first_divergence"}
    assert [r["run_id"] for r in data["runs"]] == ids and data["baseline"] == ids[0]
    assert data["first_divergence"]["run_id"] == ids[2] and data["first_divergence"]["cause"] == "different_tool"
    assert data["runs"][1]["first_divergence"] is None and data["runs"][1]["deltas"]["tool_calls"] == 0
    assert main(["compare", ids[0], ids[1]]) == 0
    assert "No divergence" in capsys.readouterr().out
    assert main(["compare", ids[0]]) == 2
    assert "at least 2" in capsys.readouterr().err
    assert main(["compare", ids[0], "no-such-run"]) == 2
    assert "unknown run id(s): no-such-run" in capsys.readouterr().err
    assert main(["compare", *(ids * 3)[:7]]) == 2
    assert "at most 6" in capsys.readouterr().err


def test_star_alignment_shares_a_row_only_for_the_same_extra_call() -> None:
    from agent_core.analysis.compare import align

    x = {"kind": "tool", "tool": "calculator", "args": {"q": "a"}, "result": "r1"}
    y = {"kind": "tool", "tool": "lookup", "args": {"q": "b"}, "result": "r1"}
    z = {"kind": "tool", "tool": "read_file", "args": {"q": "c"}, "result": "r1"}
    end = {"kind": "answer", "text": "done"}
    runs = [[x, end], [y, x, end], [y, x, end], [z, x, end]]
    trajs = [trajectory(make_record(f"r{i}", ev, [3] * 5)) for i, ev in enumerate(runs)]
    rows = align(trajs, 0)
    assert rows == [[None, 0, 0, None], [None, None, None, 0], [0, 1, 1, 1], [1, 2, 2, 2]]
