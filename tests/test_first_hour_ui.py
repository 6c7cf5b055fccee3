"""The first hour's last UI points: History's table at 1400 and 800 px, one percent
format on Tool stats, waiting that looks alive, and the small texts that were wrong.

AppTest against a private data folder (the fixtures of tests/test_pages.py); the look at 800 px
itself is checked in tests/test_browser.py (the table a narrow window shows)."""

from __future__ import annotations

import json
import re
import socket
from pathlib import Path
from typing import Any

import pyarrow
import pytest
import test_pages
from streamlit.testing.v1 import AppTest
from test_pages import app, offline_run, scripted_run

from ui import history as _history_ui


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """tests/test_pages.py's private data folder (a workspace copy, no retry waits)."""
    return test_pages.data_dir.__wrapped__(tmp_path, monkeypatch)


def _columns(frame: Any) -> dict[str, Any]:
    return json.loads(frame.proto.columns)


def test_history_shows_the_analysts_columns_wide_and_the_essentials_narrow(data_dir: Path) -> None:
    offline_run("What is (24*7)+100?")
    at = app("pages/history.py")
    wide, narrow = at.dataframe
    # Wide: the numbers an analyst sorts by first, then provider and model (all in view at 1400 px).
    # (people's verdicts, the "label" column, sit beside the status since the labelling round)
    assert [c for c in wide.proto.column_order if c != "label"][:10] == [
        *("started_at", "status", "goal", "steps", "tool_calls", "duration_s", "cost_usd", "tokens"),
        *("provider", "model"),
    ]
    assert {"answer_check", "summary", "scripted"} <= set(wide.proto.column_order)
    # Narrow: only when, how it ended and what was asked; the rest under "Show/hide columns".
    assert list(narrow.proto.column_order) == ["started_at", "status", "goal"]
    assert _columns(narrow)["started_at"]["type_config"]["format"] == "MM-DD HH:mm"
    # Wide: no year in the time (it is in the Dates filter), so the model's name has room at 1400 px.
    assert _columns(wide)["started_at"]["type_config"]["format"] == "MM-DD HH:mm:ss"
    assert list(narrow.value["run_id"]) == list(wide.value["run_id"])  # the same runs, all columns at hand
    # One of the two per window width, by CSS on their containers.
    (style,) = [h.proto.body for h in at.get("html") if "history_narrow" in h.proto.body]
    assert (
        f"@media (min-width: {_history_ui.NARROW_BELOW_PX}px) {{ .st-key-history_narrow {{ display: none !important; }}"
        in style
    )
    assert ".st-key-history_wide { display: none !important; }" in style
    assert any("Show/hide columns" in c.value for c in at.caption)


def test_tool_stats_uses_one_percent_format(data_dir: Path) -> None:
    """Every rate on Tool stats is a whole percent: the progress columns ("67%", not "66.67%"),
    the metric, the chart axes and tooltips."""
    scripted_run(
        "a",
        [
            {"tool_calls": [{"name": "calculator", "arguments": {"expression": "1+1"}}]},
            {"tool_calls": [{"name": "calculator", "arguments": {"expression": "1+1"}}]},
            {"tool_calls": [{"name": "calculator", "arguments": {"expression": "2+2"}}]},
            {"text": "done 2"},
        ],
    )
    at = app("pages/tool_stats.py")
    assert not at.exception
    percent_columns = [
        (name, config["type_config"])
        for frame in at.dataframe
        for name, config in _columns(frame).items()
        if (config.get("type_config") or {}).get("format") == "percent"
    ]
    # Success and worked-when-called-correctly (per tool, twice per provider), ungrounded answers, chosen.
    assert {name for name, _ in percent_columns} >= {"success_rate", "reliable_rate", "ungrounded_rate", "choice_rate"}
    # Streamlit shows a "percent" column with (decimals of step - 2) digits: 0.01 -> whole percents.
    assert all(config.get("step") == 0.01 for _, config in percent_columns), percent_columns
    assert {m.label: m.value for m in at.metric}["Success rate"] == "67%"  # 2 of 3 (one refused repeat)
    for chart in (json.loads(c.proto.spec) for c in at.get("vega_lite_chart")):
        for channel in chart["encoding"].values():
            for item in channel if isinstance(channel, list) else [channel]:
                if isinstance(item, dict) and "rate" in str(item.get("field")) and "format" in item:
                    assert item["format"] == ".0%", item
    # The per-tool table has one duplicates column (the error-category copy of it is left out).
    per_tool = at.dataframe[0]
    assert "duplicates" in per_tool.proto.column_order and "err_duplicate" not in per_tool.proto.column_order


def test_tool_stats_duration_chart_reads_with_one_slow_tool(data_dir: Path) -> None:
    offline_run("What is (24*7)+100?")
    at = app("pages/tool_stats.py")
    specs = [json.loads(c.proto.spec) for c in at.get("vega_lite_chart")]
    durations = next(spec for spec in specs if "yOffset" in spec["encoding"])
    x = durations["encoding"]["x"]
    assert x["scale"] == {"type": "symlog"}
    ticks = x["axis"]["values"]
    assert ticks[:3] == [0, 1, 10] and all(b == a * 10 for a, b in zip(ticks[1:], ticks[2:]))
    assert "format(" in x["axis"]["labelExpr"]  # 10, 100, 1,000 — not 1e+1
    assert durations["encoding"]["y"]["axis"]["labelLimit"] >= 200  # "search_documents (n=5)" in full
    chart = next(c for c in at.get("vega_lite_chart") if "yOffset" in json.loads(c.proto.spec)["encoding"])
    tools = set(pyarrow.ipc.open_stream(chart.proto.data.data).read_pandas()["tool"])
    assert "calculator (n=1 · few)" in tools  # n per bar; under 5 calls marked as few


# --- Waiting that looks alive ---------------------------------------------------------------------


def _live_view(phase: str) -> None:
    """A live run view driven by hand: events, then the clock moved back, then one tick (what the
    page following a run does about once a second)."""
    from agent_core.run.events import ModelCallRetrying, ModelCallStarted, ModelLoading, RunStarted
    from ui.run_view import RunView

    view = RunView(max_steps=5, max_context_blocks=4)
    view.handle(RunStarted(run_id="r1", goal="What is 12*12?"))
    warm = "Warming up the model (first run only, about 20 s): it reads the tool list once"
    view.handle(ModelLoading(run_id="r1", stage="load", done=1, total=2, message=warm))
    view.loading_t0 -= 7
    view.t0 -= 7
    if phase != "warm-up":
        view.handle(ModelCallStarted(run_id="r1", step=1))
        view.waiting_t0 -= 4  # type: ignore[operator]
        view.t0 -= 4
    if phase == "retry":
        message = "connection refused at http://127.0.0.1:9 — is it running?"
        view.handle(
            ModelCallRetrying(run_id="r1", step=1, attempt=1, error_type="ConnectError", message=message, wait_s=2.0)
        )
        view.waiting_t0 -= 1  # type: ignore[operator]
    view.tick()


def _time_metric(at: Any) -> float:
    (value,) = [m.value for m in at.metric if m.label == "Time"]
    number, unit = value.split()
    return float(number) * (1 if unit == "s" else 0.001)


def test_the_warm_up_says_what_it_is_and_its_bar_and_clock_move() -> None:
    at = AppTest.from_function(_live_view, args=("warm-up",)).run()
    assert not at.exception, [e.value for e in at.exception]
    (bar,) = [p for p in at.get("progress") if p.proto.text.startswith("Warming")]
    text = re.sub(r"\\(.)", r"\1", bar.proto.text)  # as shown (Markdown unescaped)
    assert text.startswith("Warming up the model (first run only, about 20 s)") and text.endswith("· 7 s")
    assert bar.proto.value > 50  # moving on from the 50 % it sat at while "reading the tool list"
    assert _time_metric(at) >= 7  # not "0.0 ms" through a cold start


def test_a_long_model_call_shows_its_seconds_and_the_clock_ticks() -> None:
    at = AppTest.from_function(_live_view, args=("model",)).run()
    assert not at.exception, [e.value for e in at.exception]
    captions = [c.value for c in at.caption]
    assert "🧠 Asking the model — processing your text… 4 s" in captions
    assert any(c.startswith("✅ Model ready") for c in captions)
    assert not any("(ready)" in c or "· ready" in c for c in captions)  # not "✅ Model ready (ready)"
    assert _time_metric(at) >= 11


def test_a_retry_wait_counts_up_to_its_length_and_its_message_ends_once() -> None:
    at = AppTest.from_function(_live_view, args=("retry",)).run()
    assert not at.exception, [e.value for e in at.exception]
    assert "⏳ Waiting before attempt 2: 1.0 of 2.0 s" in [c.value for c in at.caption]
    (warning,) = [re.sub(r"\\(.)", r"\1", w.value) for w in at.warning]  # as shown (Markdown unescaped)
    assert "is it running? Retrying in 2.00 s." in warning and "?." not in warning


# --- Small texts ----------------------------------------------------------------------------------


def _all_text(at: AppTest) -> list[str]:
    texts = [m.value for m in at.markdown] + [c.value for c in at.caption] + [t.value for t in at.text]
    texts += [s.label for s in at.status] + [f"{m.label} {m.value}" for m in at.metric]
    return texts + [w.value for w in at.warning] + [i.value for i in at.info] + [e.value for e in at.error]


def test_a_one_step_run_says_step_not_steps(data_dir: Path) -> None:
    at = app()
    at.selectbox(key="run_provider").select("offline").run()
    at.text_area(key="run_goal").input("hello")
    at.button(key="run_start").click().run()
    (record,) = test_pages.records(data_dir)
    assert len(record["steps"]) == 1
    texts = _all_text(at) + _all_text(app("pages/history.py", {"run": record["run_id"]}))
    assert not [t for t in texts if re.search(r"\b1 steps\b", t)]


def test_the_transcript_escapes_a_tool_name_once(data_dir: Path) -> None:
    record = offline_run("Search the web for streamlit")
    at = app("pages/history.py", {"run": record["run_id"]})
    labels = [c.value for c in at.caption if c.value.startswith("tool · ")]
    assert labels and "tool · search\\_web" in labels  # Markdown shows search_web
    assert not [label for label in labels if "\\\\" in label]  # never search\\_web on screen


def test_a_long_goal_is_folded_live_and_in_history(data_dir: Path) -> None:
    goal = "What is 2+2? " + "Please take care. " * 30  # ~530 characters
    at = app()
    at.selectbox(key="run_provider").select("offline").run()
    at.text_area(key="run_goal").input(goal)
    at.button(key="run_start").click().run()
    (record,) = test_pages.records(data_dir)
    folded = goal.strip()[:300] + "…"
    for page in (at, app("pages/history.py", {"run": record["run_id"]})):
        assert folded in [t.value for t in page.text]  # its first 300 characters
        assert f"Show all {len(goal.strip()):,} characters" in [e.label for e in page.expander]


# --- Tools page and providers ---------------------------------------------------------------------


def test_the_tools_page_clears_the_last_result_and_offers_workspace_files(data_dir: Path) -> None:
    at = app("pages/tools.py")
    at.selectbox(key="tools_pick").select("calculator").run()
    at.text_input(key="tools_arg_calculator_expression").input("6*7")
    at.button[0].click().run()
    assert any(c.value == "42" for c in at.code)
    at.selectbox(key="tools_pick").select("read_file").run()
    assert not any(c.value == "42" for c in at.code) and not at.json  # another tool: no stale result
    files = at.selectbox(key="tools_arg_read_file_path").options
    assert files == sorted(
        str(p.relative_to(data_dir / "workspace")) for p in (data_dir / "workspace").rglob("*") if p.is_file()
    )
    assert "notes.txt" in files


def test_your_own_model_server_is_available_only_while_it_answers() -> None:
    from agent_core.providers import list_providers
    from ui import provider as _provider_ui

    info = next(i for i in list_providers() if i.id == "openai-chat")
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        url = f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
        assert _provider_ui.checked(info, url).available
    with socket.socket() as probe:  # a port that nothing listens on
        probe.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{probe.getsockname()[1]}/v1"
    down = _provider_ui.checked(info, closed)
    assert not down.available and "no server answers" in down.hint
    assert _provider_ui.label(down) == "⛔ Your own model server — no server answers"


def _slow_call() -> None:
    import streamlit as st

    from ui.tools import retry_waiter

    waits: list[float] = []
    wait = retry_waiter(st.empty(), "search_web", sleep=waits.append)
    wait(0.25)
    wait(0.5)
    st.session_state["waits"] = waits


def test_a_slow_tool_call_shows_its_attempt_count() -> None:
    at = AppTest.from_function(_slow_call).run()
    assert at.session_state["waits"] == [0.25, 0.5]  # the dispatcher's waits, really waited
    assert [c.value for c in at.caption] == ["🔁 Attempt 3 of search\\_web…"]


def test_the_tools_page_waits_through_the_one_dispatcher(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A call that fails every attempt goes through the page's waiter (its count, then cleared)."""
    from ui import tools as _tools_ui

    shown: list[str] = []
    original = _tools_ui.retry_waiter

    def counting(slot: Any, tool: str, sleep: Any = None) -> Any:
        class Spy:
            def caption(self, text: str) -> None:
                shown.append(text)
                slot.caption(text)

        return original(Spy(), tool, sleep=lambda s: None)

    monkeypatch.setenv("SEARCH_WEB_FAILURE_RATE", "1")
    monkeypatch.setattr(_tools_ui, "retry_waiter", counting)
    at = app("pages/tools.py")
    at.selectbox(key="tools_pick").select("search_web").run()
    at.text_input(key="tools_arg_search_web_query").input("streamlit")
    at.button[0].click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert shown and shown[0].startswith("🔁 Attempt 1 of search\\_web failed")
    assert not [c for c in at.caption if c.value.startswith("🔁")]  # cleared once the call is over


def test_compare_names_context_blocks_by_the_step_that_made_them(data_dir: Path) -> None:
    """As on the Run page and in History: "from steps 2–4", not the engine's "0–2"."""
    from agent_core.analysis.compare import compare
    from agent_core.records.files import load_record
    from agent_core.run import demo
    from ui.compare import context_frame

    trimming = load_record(list(demo.prepare("trimming", test_pages.settings()).events())[-1].path)
    plain = offline_run("What is (24*7)+100?")
    frame, _ = context_frame(compare([plain, trimming]))
    made_in = {b["index"]: b["step"] for b in trimming["context_blocks"]}
    last = trimming["steps"][-1]
    sent = sorted(made_in[i] for i in last["blocks_sent"])
    trimmed = sorted(made_in[i] for i in last["blocks_trimmed"])
    assert sent == [4, 5] and trimmed == [1, 2, 3]  # (the scenario's limit is 2)
    assert frame["Run B"].iloc[-1] == "sent from steps 4–5 · trimmed from steps 1–3"
    assert frame["Run A"].iloc[0] == "sent none" and frame["Run A"].iloc[1] == "sent from step 1"


def test_a_finished_run_is_no_longer_called_live(data_dir: Path) -> None:
    at = app()
    at.selectbox(key="run_provider").select("offline").run()
    at.text_area(key="run_goal").input("What is (24*7)+100?")
    at.button(key="run_start").click().run()
    headings = [s.value for s in at.subheader]
    assert "Last run" in headings and "Live run" not in headings


def test_evals_name_providers_as_the_run_page_does(data_dir: Path) -> None:
    at = app("pages/evals.py")
    assert "Instant demo — rule-based, no AI" in at.multiselect(key="evals_providers_seeds").options


def test_a_goal_too_long_for_the_local_model_says_shorten_the_goal() -> None:
    """llama.cpp's "exceeds the context" answer reaches the user as "shorten the goal" first (it
    said "lower the context-block limit", which a first-time user cannot act on)."""
    import time
    from types import SimpleNamespace

    from agent_core.errors import ProviderError
    from agent_core.providers.local.llama_reply import stream

    class Server:  # the embedded llama.cpp server, answering as it does for a too-long prompt
        def handle_chat_completions(self, body: dict[str, Any], on_chunk: Any = None) -> dict[str, Any]:
            message = "the request exceeds the available context size, try increasing it"
            return {"error": {"type": "exceed_context_size_error", "message": message}}

    with pytest.raises(ProviderError) as raised:
        stream(SimpleNamespace(server=Server()), {"messages": []}, time.perf_counter() + 5, 5.0)  # type: ignore[arg-type]
    assert raised.value.error_type == "exceed_context_size_error"
    assert "(shorten the goal;" in raised.value.message


def test_coming_back_to_the_run_page_keeps_the_goal_and_the_choices(data_dir: Path) -> None:
    """Leaving the Run page (to look at History while a run goes) and coming back found the goal box
    empty and the provider reset to the default: the form now keeps what the person chose."""
    at = app("pages/run.py")
    at.text_area(key="run_goal").input("What is 2+2?")
    at.selectbox(key="run_provider").select("offline")
    at.number_input(key="run_max_steps").set_value(4)
    at.multiselect(key="run_tools").set_value(["calculator"])
    at.run()
    at.switch_page("pages/history.py")
    at.run()
    at.switch_page("pages/run.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.text_area(key="run_goal").value == "What is 2+2?"
    assert at.selectbox(key="run_provider").value == "offline"
    assert at.number_input(key="run_max_steps").value == 4
    assert at.multiselect(key="run_tools").value == ["calculator"]
    assert not at.warning  # (no "value set via Session State" complaint)
