"""One outcome word per run (issue 35, items 3 and 9): the Run page, History's Status column and
summary, the plain-words summary and the CLI all take it from agent_core.records.outcome; a
"could not find" answer is *Not found*; "No tool was used" never sits beside a tool call; the CLI's
``runs`` prints run ids and valid JSON."""

from __future__ import annotations

import io
import json
import sys
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from agent_core.analysis.explain import explain  # noqa: E402
from agent_core.checks.words import NO_TOOL_NOTE_PLAIN, NO_TOOL_WORKED_NOTE  # noqa: E402
from agent_core.cli.main import main as cli_main  # noqa: E402
from agent_core.providers.scripted import ScriptedProvider  # noqa: E402
from agent_core.records.outcome import outcome, shown, word  # noqa: E402
from agent_core.records.queries import FolderQueries, RunFilter  # noqa: E402
from agent_core.records.store import RunStore  # noqa: E402
from agent_core.run.loop import run_to_end  # noqa: E402
from agent_core.settings import Settings  # noqa: E402
from agent_core.tools import build_default_registry  # noqa: E402
from ui.explain import add_one_liners  # noqa: E402
from ui.outcome import status_word  # noqa: E402


@pytest.fixture
def config(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    """A fresh data folder with the sample workspace (conftest's ``data_dir``), no retry waits."""
    monkeypatch.setenv("AGENT_DATA_DIR", str(data_dir))
    return Settings.from_env(dotenv=False).replace(data_dir=data_dir, retry_delays=(0.0,))


def _run(config: Settings, goal: str, turns: list[dict[str, Any]], **overrides: Any) -> dict[str, Any]:
    return run_to_end(
        goal,
        provider=ScriptedProvider(turns),
        registry=build_default_registry(config),
        settings=config.replace(**overrides) if overrides else config,
    )


CALC = {"name": "calculator", "arguments": {"expression": "2+2"}}
BROKEN = {"name": "read_file", "arguments": {"path": "no_such_file.txt"}}


def _corpus(config: Settings) -> dict[str, dict[str, Any]]:
    return {
        "answered": _run(config, "What is 2+2?", [{"text": "", "tool_calls": [CALC]}, {"text": "It is 4."}]),
        "not_found": _run(
            config,
            "What is the CEO's phone number?",
            [{"text": "", "tool_calls": [CALC]}, {"text": "I could not find the CEO's phone number in the documents."}],
        ),
        "no_answer": _run(
            config,
            "Summarise no_such_file.txt",
            [{"text": "", "tool_calls": [BROKEN]}, {"text": "The file could be read: it says hello."}],
        ),
        "step_limit": _run(
            config,
            "Loop",
            [{"text": "", "tool_calls": [CALC]}, {"text": "", "tool_calls": [BROKEN]}, {"text": "late"}],
            max_steps=1,
        ),
    }


def test_one_word_everywhere(config: Settings, capsys: pytest.CaptureFixture[str]) -> None:
    runs = _corpus(config)
    for kind, record in runs.items():
        assert outcome(record)[0] == kind, (kind, record["status"], record.get("answer"))
    assert {r["status"] for k, r in runs.items() if k != "step_limit"} == {"completed"}  # the record keeps its status

    # History: the table's Status column and its summary column.
    store = RunStore(config.runs_dir)
    store.refresh()
    rows = FolderQueries(store).page(RunFilter()).rows
    rows = add_one_liners(rows)
    by_id = {r["run_id"]: r for r in rows.to_dict("records")}
    for kind, record in runs.items():
        row = by_id[record["run_id"]]
        assert status_word(row["status"], row["outcome"]) == word(kind)
        # The plain-words summary (and its one-liner) agree with the word.
        text = " ".join(s.text for s in explain(record).sentences)
        if kind == "not_found":
            assert "could not find" in text and "gave an answer" not in text
            assert row["summary"].startswith("Not found")
        if kind == "no_answer":
            assert "without an answer" in text and "gave an answer" not in text
            assert row["summary"].startswith("No answer")
        if kind == "answered":
            assert row["summary"].startswith("Answered")

    # The CLI's list: the run id first, then the same word.
    assert cli_main(["runs"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("run id")
    for kind, record in runs.items():
        (line,) = [ln for ln in out if ln.startswith(record["run_id"])]
        assert f"  {word(kind)} " in line, line


def test_no_tool_was_used_never_beside_a_tool_call(config: Settings) -> None:
    record = _run(config, "Summarise no_such_file.txt", [{"text": "", "tool_calls": [BROKEN]}, {"text": "Hello."}])
    assert record["tool_calls"] and record["grounding"]["note"] == NO_TOOL_WORKED_NOTE
    plain = _run(config, "Say hello", [{"text": "Hello there."}])
    assert plain["grounding"]["note"] == NO_TOOL_NOTE_PLAIN and not plain["tool_calls"]


def test_a_status_alone_and_an_interrupted_run() -> None:
    assert shown(None, "max_steps") == "Step limit"
    assert shown("running", "interrupted") == "Failed"
    assert shown("not_found", "completed") == "Not found"


def test_runs_json_is_json(config: Settings) -> None:
    _corpus(config)
    buffer = io.StringIO()
    with redirect_stdout(buffer):
        assert cli_main(["runs", "--json"]) == 0

    def no_nan(name: str) -> Any:
        raise AssertionError(f"{name} is not JSON")

    rows = [json.loads(line, parse_constant=no_nan) for line in buffer.getvalue().splitlines()]
    assert len(rows) == 4
    for row in rows:
        assert isinstance(row["tools_offered"], list) and "calculator" in row["tools_offered"]
        assert row["run_id"] and row["outcome"] in ("answered", "not_found", "no_answer", "step_limit")
    # A number the index does not know (NaN in pandas) and a missing time are null, not NaN.
    import pandas as pd

    from agent_core.cli.main import json_row

    row = json_row({"cost_usd": float("nan"), "started_at": pd.NaT, "tools_offered": None, "steps": 2})
    assert json.loads(json.dumps(row, allow_nan=False)) == {
        "cost_usd": None,
        "started_at": None,
        "tools_offered": [],
        "steps": 2,
    }


def test_the_prompt_cache_is_git_ignored() -> None:
    assert "agent_data/cache/" in (ROOT / ".gitignore").read_text().splitlines()


def test_based_on_shows_the_sentence_that_carries_the_answer() -> None:
    from ui.outcome import based_on, carrying_sentence

    policy = (
        "# Refund policy\nItems can be returned in their original packaging, with the receipt, at any of "
        "our shops or by post. Refunds are accepted within 30 days of delivery. Shipping fees are not refunded."
    )
    record = {
        "answer": "Refunds are accepted within 30 days of delivery.",
        "steps": [{"index": 1, "blocks_sent": []}, {"index": 2, "blocks_sent": [0]}],
        "context_blocks": [{"index": 0, "step": 1}],
        "tool_calls": [{"call_id": "c1", "step": 1, "tool": "read_file", "success": True, "output": policy}],
    }
    (line,) = based_on(record)
    assert line == "read_file → Refunds are accepted within 30 days of delivery."  # not "# Refund policy Items can…"
    # No shared figure or word: the result's start. A long sentence: cut around the figure it shares.
    assert carrying_sentence("Sunny. Warm.", "hello") == "Sunny."
    long = "word " * 80 + "the fee is 4,500 won per parcel " + "more " * 80
    cut = carrying_sentence(long, "It costs 4500 won.")
    assert "4,500 won" in cut and len(cut) <= 160 and cut.startswith("…") and cut.endswith("…")
    # A JSON result (a document search's hits) reads as key: value lines, with no quotes or braces;
    # "£26.00" shares its figure with "£26".
    hits = (
        '[\n{"file": "fees.txt", "section": "Paired", "snippet": "£14.00 per lesson"},\n'
        '{"file": "fees.txt", "section": "Individual", "snippet": "£26.00 per lesson"}\n]'
    )
    assert (
        carrying_sentence(hits, "It costs £26 a lesson.")
        == "file: fees.txt; section: Individual; snippet: £26.00 per lesson"
    )
    assert carrying_sentence('{"city": "Tokyo", "temp_c": 18}', "18 °C") == "city: Tokyo; temp_c: 18"
    assert carrying_sentence('["rain", 18]', "18 °C") == "18"


def test_rule_based_token_counts_are_labelled_estimates(config: Settings) -> None:
    """Item 6: the offline and scripted token counts are invented (from the text's length): the Run
    page says "~N tokens (estimated)", History shows none, Compare marks them and gives no delta."""
    from streamlit.testing.v1 import AppTest

    from agent_core.analysis.compare import compare
    from agent_core.providers import tokens_estimated

    assert tokens_estimated("offline") and tokens_estimated("scripted")
    assert not tokens_estimated("local") and not tokens_estimated("openai")

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.session_state["runs_sources_kept"] = []
    at.run()
    at.selectbox(key="run_provider").select("offline").run()
    at.text_area(key="run_goal").input("hello")
    at.button(key="run_start").click().run()
    assert not at.exception, [e.value for e in at.exception]
    tokens = {m.label: m.value for m in at.metric}["Tokens"]
    assert tokens.startswith("~") and tokens.endswith("(estimated)"), tokens
    assert any("tokens (estimated)" in m.value for m in at.markdown)

    at.switch_page("pages/history.py").run()
    table = at.dataframe[0].value
    assert table["tokens"].isna().all()  # none shown for an estimate

    real = _run(config, "What is 2+2?", [{"text": "", "tool_calls": [CALC]}, {"text": "It is 4."}])
    real["provider"] = "local"  # as if a real model had counted them
    offline = next(p for p in (config.runs_dir).glob("*.json") if json.loads(p.read_text())["provider"] == "offline")
    result = compare([json.loads(offline.read_text()), real]).as_dict()["runs"]
    assert result[0]["tokens_estimated"] and not result[1]["tokens_estimated"]
    assert result[1]["deltas"]["tokens"] is None
    from ui.compare import header_frame

    frame = header_frame(compare([json.loads(offline.read_text()), real]))
    row = frame.set_index("measure").loc["Tokens"].tolist()
    assert row[0].startswith("~") and "(estimated)" in row[0] and "(" not in row[1].replace("(estimated)", "")
    assert frame.set_index("measure").loc["Goal"].tolist() == [
        "hello",
        "What is 2+2?",
    ]  # item 8: Compare shows the goals
