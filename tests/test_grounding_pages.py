"""The answer check on the pages (AppTest): badge on Run and History, the sent-back step, the
History column and filter, the Tool stats rate, the Run page's control."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from streamlit.testing.v1 import AppTest  # noqa: E402

from agent_core.providers.scripted import ScriptedProvider  # noqa: E402
from agent_core.records.files import load_record  # noqa: E402
from agent_core.run import demo  # noqa: E402
from agent_core.run.loop import run_to_end  # noqa: E402
from agent_core.settings import Settings  # noqa: E402
from agent_core.tools import build_default_registry  # noqa: E402

WARNING = "20 °C appears in no tool result: the model may have made it up"


def plain(markdown: str) -> str:
    """Shown text without the Markdown escapes of untrusted text."""
    return markdown.replace("\\", "")


WEATHER = {"tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}, "call_id": "call_w"}]}


@pytest.fixture
def data_dir(app_data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = app_data_dir
    monkeypatch.setenv("SEARCH_WEB_FAILURE_RATE", "0")
    monkeypatch.delenv("ANSWER_CHECK", raising=False)
    monkeypatch.setattr(demo, "DEMO_RETRY_DELAYS", (0.0, 0.0))
    return root


def app(page: str | None = None, query: dict[str, str] | None = None, *, every_source: bool = True) -> AppTest:
    """The app, on ``page``; ``every_source``: History's and Tool stats' Source filter lets every run
    through (these tests' runs are mostly scripted, which the filter's default leaves out)."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=30)
    if every_source:
        at.session_state["runs_sources_kept"] = []
    at.run()
    if page:
        at.switch_page(page)
        for key, value in (query or {}).items():
            at.query_params[key] = value
        at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def scripted(answer: str, *, goal: str = "What's the weather in Paris?") -> dict[str, Any]:
    config = Settings.from_env(dotenv=False)
    return run_to_end(
        goal,
        provider=ScriptedProvider([WEATHER, {"text": answer}]),
        registry=build_default_registry(config),
        settings=config,
        scripted=True,
    )


def test_run_page_flags_the_made_up_temperature(data_dir: Path) -> None:
    at = app()
    at.selectbox(key="run_demo_pick").select("made_up").run()
    at.button(key="run_demo_start").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert any(WARNING in plain(w.value) for w in at.warning)
    (path,) = (data_dir / "runs").glob("*.json")
    record = load_record(path)
    assert record["grounding"]["claims"] == [{"text": "20 °C", "value": "20 °C", "kind": "temperature", "source": None}]


def test_run_page_shows_the_corrective_turn(data_dir: Path) -> None:
    at = app()
    at.selectbox(key="run_demo_pick").select("answer_check_retry").run()
    at.button(key="run_demo_start").click().run()
    assert not at.exception, [e.value for e in at.exception]
    labels = [s.label for s in at.status]
    assert any("answer sent back by the answer check" in label for label in labels)
    assert any("sent back to the model" in plain(w.value) for w in at.warning)
    assert any("20 °C" in plain(m.value) for m in at.markdown)  # the rejected answer is shown in its step
    assert any("every number appears in a tool result" in plain(s.value) for s in at.success)


def test_history_detail_names_the_tool_call(data_dir: Path) -> None:
    record = scripted("It is 19 °C in Paris.")
    at = app("pages/history.py", {"run": record["run_id"]})
    assert any("every number appears in a tool result" in plain(s.value) for s in at.success)
    where = next(e for e in at.expander if e.label.startswith("Where each figure was found"))
    text = plain(" ".join(m.value for m in where.markdown))
    assert "get_weather" in text and "call_w" in text and "step 1" in text


def test_history_detail_shows_a_wrong_sum_and_the_right_one(data_dir: Path) -> None:
    record = scripted("It is 19 °C in Paris; 19 + 1 = 21.")
    claims = record["grounding"]["claims"]
    assert {"text": "19 + 1 = 21", "arithmetic": "19 + 1 = 20"}.items() <= claims[-1].items()
    at = app("pages/history.py", {"run": record["run_id"]})
    warning = " ".join(plain(w.value) for w in at.warning)
    assert "19 + 1 = 21 is wrong: 19 + 1 = 20; 1, 21 appear in no tool result" in warning
    where = next(e for e in at.expander if e.label.startswith("Where each figure was found"))
    assert "wrong arithmetic: 19 + 1 = 20" in plain(" ".join(m.value for m in where.markdown))


def test_history_column_and_filter(data_dir: Path) -> None:
    flagged = scripted("The weather in Paris is 20 °C.")
    honest = scripted("The weather in Paris is 19 °C.")
    at = app("pages/history.py")
    table = at.dataframe[0].value.set_index("run_id")
    assert table.loc[flagged["run_id"], "answer_check"] == "⚠️ ungrounded"
    assert table.loc[honest["run_id"], "answer_check"] == "✅ grounded"
    at.multiselect(key="history_checks").set_value(["⚠️ ungrounded"]).run()
    assert list(at.dataframe[0].value["run_id"]) == [flagged["run_id"]]


def test_tool_stats_ungrounded_rate(data_dir: Path) -> None:
    scripted("The weather in Paris is 20 °C.")
    scripted("The weather in Paris is 19 °C.")
    at = app("pages/tool_stats.py")
    rates = next(d.value for d in at.dataframe if "ungrounded_rate" in d.value.columns)
    row = rates.set_index("provider").loc["scripted"]
    assert row["checked"] == 2 and row["ungrounded_rate"] == pytest.approx(0.5)


def test_run_page_answer_check_control_reaches_the_record(data_dir: Path) -> None:
    at = app()
    at.selectbox(key="run_provider").select("offline").run()
    at.selectbox(key="run_answer_check").select("off").run()
    at.text_area(key="run_goal").input("What is (24*7)+100?").run()
    at.button(key="run_start").click().run()
    assert not at.exception, [e.value for e in at.exception]
    (path,) = (data_dir / "runs").glob("*.json")
    record = load_record(path)
    assert record["settings"]["answer_check"] == "off" and "grounding" not in record
