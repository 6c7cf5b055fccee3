"""Who decided, on the pages (AppTest): History's run detail says in plain words which calls the
model chose and which the workbench made, and how each step's output was held."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from streamlit.testing.v1 import AppTest  # noqa: E402

from agent_core.providers.scripted import ScriptedProvider  # noqa: E402
from agent_core.run.loop import run_to_end  # noqa: E402
from agent_core.settings import Settings  # noqa: E402
from agent_core.tools import build_default_registry  # noqa: E402
from tests.record_schema import assert_valid_record  # noqa: E402


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "agent_data"
    shutil.copytree(ROOT / "agent_data" / "workspace", root / "workspace")
    (root / "runs").mkdir()
    monkeypatch.setenv("AGENT_DATA_DIR", str(root))
    return root


def shown(at: AppTest) -> str:
    texts = [e.value for e in (*at.markdown, *at.caption)]
    return "\n".join(str(t).replace("\\", "") for t in texts)


def history(run_id: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=30)
    at.run()
    at.switch_page("pages/history.py")
    at.query_params["run"] = run_id
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_history_says_who_chose_each_call(data_dir: Path) -> None:
    settings = Settings(data_dir=data_dir)
    provider = ScriptedProvider(
        [
            {"tool_calls": [{"name": "get_weather", "arguments": {"city": "Tokyo"}}]},
            {
                "tool_calls": [
                    {
                        "name": "search_documents",
                        "arguments": {"query": "refund"},
                        "origin": "harness",
                        "harness_rule": "a document search before the answer",
                    }
                ]
            },
            {"text": "Tokyo is 25 °C and cloudy; refunds are accepted within 30 days of delivery."},
        ]
    )
    record = run_to_end(
        "weather in Tokyo, and the refund window?",
        provider=provider,
        registry=build_default_registry(settings),
        settings=settings,
    )
    text = shown(history(record["run_id"]))
    assert '🧠 The model chose get_weather(city="Tokyo")' in text
    assert (
        '⚙ The workbench called search_documents(query="refund") for the model — rule: a document search before the answer'
        in text
    )
    assert "🧠 **Model** chose 1 tool call" in text and "⚙ **Workbench** chose 1 tool call for the model" in text
    assert "Output not constrained: the model chose freely among the tools its API was given." in text


def test_history_shows_the_local_models_constraint_in_plain_words(data_dir: Path) -> None:
    settings = Settings(data_dir=data_dir)
    held = {
        "kind": "grammar",
        "tools": ["calculator", "search_documents"],
        "answer": True,
        "notes": ["figures in the answer only from the goal or the tool results"],
    }
    from agent_core.context import ToolCallRequest
    from agent_core.providers.base import ModelResponse

    provider = ScriptedProvider(
        [
            ModelResponse(
                text="I need the price.",
                tool_calls=[ToolCallRequest("c1", "calculator", {"expression": "24 * 7"})],
                constraint=held,
            ),
            ModelResponse(text="It costs 168.", constraint=held),
        ]
    )
    record = run_to_end("24 times 7?", provider=provider, registry=build_default_registry(settings), settings=settings)
    assert record["steps"][0]["constraint"] == held
    text = shown(history(record["run_id"]))
    assert (
        "Output held to a grammar: one of 2 tools (calculator, search_documents) or the final answer. "
        "Figures in the answer only from the goal or the tool results."
    ) in text


def test_history_and_the_export_say_how_sure_the_model_was_of_each_choice(data_dir: Path) -> None:
    """A step's ``certainty`` (the local model's probability for the tool it chose, from its token
    probabilities) is said on History, in the HTML export and on the step's OTel span."""
    from agent_core.analysis.export_html import export_html
    from agent_core.context import ToolCallRequest
    from agent_core.otel.export import record_to_trace
    from agent_core.providers.base import ModelResponse

    settings = Settings(data_dir=data_dir)
    held = {
        "kind": "grammar",
        "tools": ["calculator", "search_documents"],
        "answer": True,
        "certainty": {
            "chosen": "calculator",
            "p": 0.6234,
            "others": [{"name": "search_documents", "p": 0.3}, {"name": "answer", "p": 0.0766}],
        },
    }
    provider = ScriptedProvider(
        [
            ModelResponse(
                text="I need the sum.",
                tool_calls=[ToolCallRequest("c1", "calculator", {"expression": "24 * 7"})],
                constraint=held,
            ),
            ModelResponse(text="It is 168.", constraint={"kind": "grammar", "tools": [], "answer": True}),
        ]
    )
    record = run_to_end("24 times 7?", provider=provider, registry=build_default_registry(settings), settings=settings)
    assert record["steps"][0]["constraint"] == held
    words = "How sure the model was of its choice: calculator 62% (search_documents 30%, the answer 8%)."
    assert words in shown(history(record["run_id"]))
    page = export_html(record)
    assert words.replace("'", "&#x27;") in page
    assert "Context sent: the goal only (no blocks yet)" in page and "the goal and none" not in page
    spans = record_to_trace(record).spans
    (step,) = [s for s in spans if s.attributes.get("agent_workbench.step") == 1 and s.name.startswith("chat")]
    assert step.attributes["agent_workbench.choice.chosen"] == "calculator"
    assert step.attributes["agent_workbench.choice.probability"] == 0.6234


def test_history_the_export_and_the_trace_show_the_result_line_an_answer_was_read_from(data_dir: Path) -> None:
    """A step that picked a result line before answering (the constraint's ``line_choice``): History
    lists the lines with the picked one marked and quotes it, as the HTML export does; the step's
    span has its number, and the line itself only when content is exported."""
    from agent_core.analysis.export_html import export_html
    from agent_core.otel.export import record_to_trace
    from agent_core.providers.base import ModelResponse

    settings = Settings(data_dir=data_dir)
    lines = ["Standard excess (each claim): $300", "Escape of water excess (each claim): $500", "Renews each May."]
    held = {
        "kind": "grammar",
        "tools": [],
        "answer": True,
        "notes": ["the model picked result line 2 of 3 (its probability 71%) before answering"],
        "line_choice": {"lines": lines, "chosen": 2, "p": 0.71},
    }
    provider = ScriptedProvider([ModelResponse(text="The escape of water excess is $500.", constraint=held)])
    record = run_to_end(
        "Escape of water excess?", provider=provider, registry=build_default_registry(settings), settings=settings
    )
    assert_valid_record(record)
    text = shown(history(record["run_id"]))
    assert "The 3 result lines the model chose among before answering" in text
    assert "2. **Escape of water excess (each claim): $500** ← picked" in text
    assert "1. Standard excess (each claim): $300\n" in text
    quoted = "The result line it answered from: “Escape of water excess (each claim): $500”."
    assert quoted not in text  # History lists the lines: the step's sentence does not quote one again
    assert quoted in export_html(record)
    private = export_html(record, hide_outputs=True)  # the lines quote results: left out with them
    assert "$300" not in private and "Renews each May" not in private
    assert "The result line it answered from: “[tool output left out of this export]”." in private
    (step,) = [s for s in record_to_trace(record).spans if s.name.startswith("chat")]
    assert step.attributes["agent_workbench.line_choice.chosen"] == 2
    assert step.attributes["agent_workbench.line_choice.lines"] == 3
    assert step.attributes["agent_workbench.line_choice.probability"] == 0.71
    assert "agent_workbench.line_choice.line" not in step.attributes  # content only when asked for
    (step,) = [s for s in record_to_trace(record, content=True).spans if s.name.startswith("chat")]
    assert step.attributes["agent_workbench.line_choice.line"] == lines[1]


def test_the_offline_demo_is_never_called_a_model(data_dir: Path) -> None:
    """The offline planner is rules, not an LLM: each step records ``constraint.kind: rules`` and
    the page says the rule-based demo chose the call and wrote the answer, not "🧠 Model"."""
    from agent_core.providers import make_provider

    settings = Settings(data_dir=data_dir)
    record = run_to_end(
        "What is (24*7)+100?",
        provider=make_provider("offline", settings=settings),
        registry=build_default_registry(settings),
        settings=settings,
    )
    assert [s["constraint"]["kind"] for s in record["steps"]] == ["rules", "rules"]
    text = shown(history(record["run_id"]))
    assert "⚙ **Rule-based demo** chose 1 tool call" in text and "⚙ **Rule-based demo** wrote the final answer" in text
    assert "No model wrote this answer: offline demo rule: " in text and "(rule-based, no LLM)." in text
    assert "🧠 **Model**" not in text and "the model wrote freely" not in text


def test_a_scripted_demo_is_never_called_a_model(data_dir: Path) -> None:
    """A presenter's scripted demo (``origin="harness"``): its answer is a fixed turn, not a model's."""
    settings = Settings(data_dir=data_dir)
    provider = ScriptedProvider(
        [{"tool_calls": [{"name": "calculator", "arguments": {"expression": "2+2"}}]}, {"text": "It is 4."}],
        origin="harness",
    )
    record = run_to_end("2+2?", provider=provider, registry=build_default_registry(settings), settings=settings)
    text = shown(history(record["run_id"]))
    assert "⚙ **Rule-based demo** wrote the final answer" in text and "🧠 **Model**" not in text
    assert "No model wrote this answer: scripted demo: a fixed turn, no model (rule-based, no LLM)." in text
