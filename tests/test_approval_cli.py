"""Where no one can answer, nothing waits: ``run --approve ask|all|none`` on the command line, and
an eval whose goal calls a tool that asks (a declared tool that says it deletes things)."""

from __future__ import annotations

import io
import json
import time
from pathlib import Path
from typing import Any

import pytest

from agent_core import providers
from agent_core.cli import main as cli_main
from agent_core.evals.goalset import parse_goal_set
from agent_core.evals.runner import Target, run_eval
from agent_core.providers.scripted import ScriptedProvider
from agent_core.records.files import load_record
from agent_core.settings import Settings
from agent_core.tools import declared

TOOL = "close_ticket"


def _declare(settings: Settings) -> None:
    """A mock tool whose annotations say it may change things: its policy asks."""
    declared.save_tool(
        settings,
        {
            "name": TOOL,
            "description": "Close a support ticket.",
            "kind": "mock",
            "result": "ticket {{ticket_id}} closed",
            "annotations": {"destructiveHint": True, "readOnlyHint": False},
            "parameters": {
                "type": "object",
                "properties": {"ticket_id": {"type": "integer"}},
                "required": ["ticket_id"],
            },
        },
    )


def _turns() -> list[dict[str, Any]]:
    return [{"tool_calls": [{"name": TOOL, "arguments": {"ticket_id": 7}}]}, {"text": "Handled ticket 7."}]


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def cli(settings: Settings, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Any:
    _declare(settings)
    monkeypatch.setenv("AGENT_DATA_DIR", str(settings.data_dir))
    monkeypatch.setattr(providers, "make_provider", lambda *a, **k: ScriptedProvider(_turns()))

    def run(*args: str, stdin: io.StringIO | None = None) -> tuple[int, dict[str, Any], str]:
        monkeypatch.setattr("sys.stdin", stdin if stdin is not None else io.StringIO(""))
        code = cli_main.main(["run", "Close ticket 7", "--provider", "offline", *args])
        err = capsys.readouterr().err
        path = next(line for line in err.splitlines() if line.startswith("record: ")).removeprefix("record: ")
        return code, load_record(path), err

    return run


def _call(record: dict[str, Any]) -> dict[str, Any]:
    (call,) = record["tool_calls"]
    return call


def test_approve_all_runs_the_call(cli: Any) -> None:
    code, record, _ = cli("--approve", "all")
    assert code == 0 and _call(record)["output"] == "ticket 7 closed"
    assert _call(record)["approval"]["decision"] == "approved"
    assert _call(record)["approval"]["by"] == "run --approve all"


def test_approve_none_rejects_and_the_model_is_told(cli: Any) -> None:
    code, record, err = cli("--approve", "none")
    call = _call(record)
    assert code == 0 and not call["success"] and call["approval"]["decision"] == "rejected"
    assert "was not run" in call["output"] and call["approval"]["by"] == "run --approve none"
    assert "no terminal" not in err


def test_ask_without_a_terminal_is_none_with_a_message(cli: Any) -> None:
    started = time.monotonic()
    code, record, err = cli()  # --approve ask is the default; stdin is a pipe here
    assert time.monotonic() - started < 10
    assert _call(record)["approval"]["decision"] == "rejected"
    assert f"note: {TOOL} needs approval but there is no terminal to ask on: rejected" in err


def test_ask_on_a_terminal_prompts_and_takes_an_edit(cli: Any) -> None:
    # An invalid edit is refused with the schema's message, then a valid one runs.
    answers = _Terminal('e\n{"ticket_id": "x"}\ne\n{"ticket_id": 8}\n')
    code, record, err = cli("--approve", "ask", stdin=answers)
    assert f"✋ {TOOL} (declared in" in err and '"ticket_id": 7' in err
    assert f"refused: Invalid arguments for {TOOL}: ticket_id: expected integer, got string" in err
    call = _call(record)
    assert call["approval"]["decision"] == "edited" and call["arguments"] == {"ticket_id": 8}
    assert call["output"].endswith("ticket 8 closed") and "it ran with" in call["output"]


def test_ask_on_a_terminal_reject_sends_the_reason(cli: Any) -> None:
    code, record, err = cli("--approve", "ask", stdin=_Terminal("r\nnot this one\n"))
    call = _call(record)
    assert call["approval"]["reason"] == "not this one" and "not this one" in call["output"]
    assert call["approval"]["by"] == "a person, on the terminal"
    assert f"{TOOL}: rejected by a person, on the terminal" in err


def test_an_eval_using_the_tool_never_waits(settings: Settings) -> None:
    _declare(settings)
    goal_set = parse_goal_set(
        "name: t\ngoals:\n  - id: close\n    goal: Close ticket 7\n    checks: [{answer_number: 7}]\n", "t.yaml"
    )
    target = [Target("offline", "scripted-1")]
    started = time.monotonic()
    result = run_eval(goal_set, target, settings=settings, provider_factory=lambda t, g: ScriptedProvider(_turns()))
    assert time.monotonic() - started < 30
    records = [json.loads(p.read_text()) for p in settings.runs_dir.glob("*.json")]
    (record,) = [r for r in records if r.get("eval_id") == result["eval_id"]]
    approval = _call(record)["approval"]
    assert approval["decision"] == "rejected" and approval["by"] == "eval --approve none"
    assert approval["wait_ms"] < 1000
    allowed = run_eval(
        goal_set, target, settings=settings, approve="all", provider_factory=lambda t, g: ScriptedProvider(_turns())
    )
    records = [json.loads(p.read_text()) for p in settings.runs_dir.glob("*.json")]
    (record,) = [r for r in records if r.get("eval_id") == allowed["eval_id"]]
    assert _call(record)["output"] == "ticket 7 closed" and _call(record)["approval"]["by"] == "eval --approve all"


def test_batch_commands_take_all_or_none(data_dir: Path) -> None:
    parser = cli_main.build_parser()
    assert parser.parse_args(["eval", "x.yaml"]).approve == "none"
    assert parser.parse_args(["replay", "r1", "--provider", "offline", "--approve", "all"]).approve == "all"
    assert parser.parse_args(["arena", "g", "--provider", "offline", "--approve", "none"]).approve == "none"
    assert parser.parse_args(["run", "g"]).approve == "ask"
    with pytest.raises(SystemExit):
        parser.parse_args(["eval", "x.yaml", "--approve", "ask"])  # a batch cannot ask
