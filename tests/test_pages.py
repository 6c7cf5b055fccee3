"""AppTest checks of every dashboard page, against a temporary data folder.

Each test points ``AGENT_DATA_DIR`` at a tmp copy of ``agent_data/workspace`` so nothing is
written into the repo; runs use the ``offline`` provider or scripted turns, with no retry waits.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # so `pages` and `agent_core` import however pytest is started
    sys.path.insert(0, str(ROOT))

from streamlit.runtime.scriptrunner_utils.exceptions import StopException  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

from agent_core.providers import make_provider  # noqa: E402
from agent_core.providers.scripted import ScriptedProvider  # noqa: E402
from agent_core.records.files import load_record  # noqa: E402
from agent_core.run import demo  # noqa: E402
from agent_core.run.events import StepFinished  # noqa: E402
from agent_core.run.loop import run_to_end  # noqa: E402
from agent_core.settings import Settings  # noqa: E402
from agent_core.tools import build_default_registry  # noqa: E402
from ui import common as ui  # noqa: E402

SEED_GOAL = "단가를 확인해서 제품 7개의 총 가격을 계산해 주세요."
HOSTILE = (
    "<img src=http://127.0.0.1:9/x> <script>alert(1)</script> ![x](http://127.0.0.1:9/md.png) :red[hi] "
    "www.example.com mail@example.com [l](https://example.com)"
)


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private data folder (workspace copy, empty runs/) and settings with no real waits."""
    root = tmp_path / "agent_data"
    shutil.copytree(ROOT / "agent_data" / "workspace", root / "workspace")
    (root / "runs").mkdir()
    monkeypatch.setenv("AGENT_DATA_DIR", str(root))
    monkeypatch.setenv("RETRY_DELAYS", "0,0")
    monkeypatch.setenv("SEARCH_WEB_FAILURE_RATE", "0")
    monkeypatch.setenv("MAX_STEPS", "10")
    monkeypatch.setenv("MAX_CONTEXT_BLOCKS", "8")
    monkeypatch.setattr(demo, "DEMO_RETRY_DELAYS", (0.0, 0.0))
    return root


def settings() -> Settings:
    return Settings.from_env(dotenv=False)


def app(page: str | None = None, query: dict[str, str] | None = None, *, every_source: bool = True) -> AppTest:
    """The app, on ``page``; ``every_source``: History's and Tool stats' Source filter lets every run
    through (these tests' runs are mostly scripted, which the filter's default leaves out)."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=30)
    if every_source:
        at.session_state["runs_sources_kept"] = []
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    if page:
        at.switch_page(page)
        for key, value in (query or {}).items():
            at.query_params[key] = value
        at.run()
        assert not at.exception, [e.value for e in at.exception]
    return at


def records(root: Path) -> list[dict[str, Any]]:
    return [load_record(p) for p in sorted((root / "runs").glob("*.json"))]


def offline_run(goal: str, **changes: Any) -> dict[str, Any]:
    config = settings().replace(**changes)
    return run_to_end(
        goal,
        provider=make_provider("offline", settings=config),
        registry=build_default_registry(config),
        settings=config,
    )


def scripted_run(goal: str, turns: list[dict[str, Any]], **changes: Any) -> dict[str, Any]:
    config = settings().replace(**changes)
    return run_to_end(
        goal,
        provider=ScriptedProvider(turns),
        registry=build_default_registry(config),
        settings=config,
        scripted=True,
    )


def live_markup(text: str) -> list[str]:
    """Markup in a Markdown string that would still render from untrusted text.

    Escaped characters (``\\X``) stop HTML, images, links and directives — but GFM finds bare
    URLs and e-mail addresses *after* decoding escapes, so those are checked on the decoded text.
    """
    structural = re.sub(r"\\.", "_", text)
    found = [raw for raw in ("<img", "<script", "<iframe", "![", "](", ":red[") if raw in structural]
    decoded = re.sub(r"\\(.)", r"\1", text)
    found += re.findall(r"(?i)https?://|www\.|\w@\w", decoded)
    return found


def markdown_texts(at: AppTest) -> list[str]:
    """Every Markdown-rendered string on the page (bodies, captions, labels)."""
    texts = [m.value for m in at.markdown] + [c.value for c in at.caption]
    texts += [s.label for s in at.status] + [e.label for e in at.expander]
    texts += [w.value for w in at.warning] + [i.value for i in at.info] + [e.value for e in at.error]
    return texts


# --- the safe-text helper ---------------------------------------------------------------------


def test_escape_md_disarms_markup() -> None:
    escaped = ui.escape_md(HOSTILE)
    assert live_markup(HOSTILE) and live_markup(escaped) == []
    assert escaped.replace("\\", "").replace("\u2060", "") == HOSTILE  # nothing lost, only escaped
    assert ui.md_label("a\nb  c", 80) == "a b  c".replace("  ", " ")
    assert ui.escape_md("line1\nline2") == "line1  \nline2"


def test_schema_fields_and_arguments() -> None:
    registry = build_default_registry(Settings())
    weather = {f.name: f for f in ui.schema_fields(registry.get("get_weather").parameters)}
    assert weather["city"].kind == "text" and weather["city"].required
    assert weather["unit"].kind == "enum" and weather["unit"].options == ("celsius", "fahrenheit")
    assert ui.collect_arguments(list(weather.values()), {"city": "Seoul", "unit": "fahrenheit"}) == {
        "city": "Seoul",
        "unit": "fahrenheit",
    }


# --- Run page -----------------------------------------------------------------------------------


def test_run_page_widgets(data_dir: Path) -> None:
    at = app()
    assert at.title[0].value.endswith("Run an agent")
    # The goal box starts empty (an example is one pick away), with a counter up to the limit.
    assert at.text_area(key="run_goal").value == ""
    assert at.text_area(key="run_goal").max_chars == 20_000
    provider = at.selectbox(key="run_provider")
    # Plain names, the status first when a provider cannot be used.
    assert "Instant demo — rule-based, no AI" in provider.options
    names = {o.removeprefix("⛔ ").split(" — ")[0] for o in provider.options}
    assert {"Instant demo", "OpenAI", "Anthropic Claude", "Your own model server", "Local AI model"} <= names
    assert all(o.startswith("⛔ ") for o in provider.options if "needs an API key" in o)
    assert at.number_input(key="run_max_steps").value == 10
    assert at.number_input(key="run_max_blocks").value == 8
    assert "calculator" in at.multiselect(key="run_tools").value
    assert at.button(key="run_start") is not None
    assert at.selectbox(key="run_demo_pick").value == demo.TOUR.id  # one click runs the tour
    assert len(at.selectbox(key="run_demo_pick").options) == len(demo.SCENARIOS)
    # An unavailable provider is shown with its hint and Run is disabled, never a crash.
    at.selectbox(key="run_provider").select("anthropic").run()
    if not any(w.value and "unavailable" in w.value for w in at.warning):
        pytest.skip("anthropic is configured on this machine")
    assert at.button(key="run_start").disabled
    # The message points to the providers that work.
    assert any("Working here" in w.value and "Instant demo" in w.value for w in at.warning)
    assert any(".env. Working here" in w.value for w in at.warning)  # the hint ends its sentence
    assert not at.exception


def test_example_fills_goal(data_dir: Path) -> None:
    at = app()
    at.selectbox(key="run_example").select("What is (24*7)+100?").run()
    assert at.text_area(key="run_goal").value == "What is (24*7)+100?"


def test_offline_run_from_run_page(data_dir: Path) -> None:
    at = app()
    at.selectbox(key="run_provider").select("offline").run()
    at.text_area(key="run_goal").input(SEED_GOAL)
    at.button(key="run_start").click().run()
    assert not at.exception, [e.value for e in at.exception]
    states = [s.state for s in at.status]
    assert states and all(state == "complete" for state in states)
    assert at.status[0].label.startswith("Step 1") and "lookup" in at.status[0].label
    assert "final answer" in at.status[-1].label
    assert any("168" in t.value for t in at.text)
    links = at.main.page_link  # (the sidebar has one to the Workspace page)
    assert links and "run=" in links[-1].proto.query_string
    (record,) = records(data_dir)
    assert record["status"] == "completed" and record["provider"] == "offline"
    assert "168" in record["answer"] and not record["scripted"]
    assert links[-1].proto.query_string == f"run={record['run_id']}"
    # A rerun (any widget) shows the same run again, drawn from its record.
    at.run()
    assert [s.label for s in at.status] and any("168" in t.value for t in at.text)


def test_a_data_folder_without_workspace_gets_the_samples(data_dir: Path) -> None:
    shutil.rmtree(data_dir / "workspace")
    app()
    assert sorted(p.name for p in (data_dir / "workspace").iterdir()) == sorted(
        p.name for p in (ROOT / "agent_data" / "workspace").iterdir()
    )


@pytest.mark.parametrize(
    ("goal", "word", "reason", "based_on"),
    [
        ("What is (24*7)+100?", "Answered", "", "calculator → 268"),
        ("What's the weather in Seoul in fahrenheit?", "Answered", "", "simulated weather data"),
        ("blorp the zingle", "No answer", "no rule for this goal", None),
        ("Read notes.txt and summarize it", "No answer", "Every tool call failed", None),
    ],
)
def test_outcome_words_say_what_happened(
    data_dir: Path, goal: str, word: str, reason: str, based_on: str | None
) -> None:
    """The Run page names the outcome in plain words, whatever the saved status says ("completed"
    for all four): a rule-less goal and a run whose tools all failed did not answer."""
    at = app()
    if goal.startswith("Read"):
        shutil.rmtree(data_dir / "workspace")  # the examples' files went missing after the start
    at.selectbox(key="run_provider").select("offline").run()
    at.text_area(key="run_goal").input(goal)
    at.button(key="run_start").click().run()
    assert not at.exception, [e.value for e in at.exception]
    (record,) = records(data_dir)
    assert record["status"] == "completed"  # the record keeps its status
    (line,) = [m.value for m in at.markdown if m.value.startswith("**Outcome:")]
    assert "**Outcome: " in line and word in line and reason.replace(" ", "") in line.replace("\\", "").replace(" ", "")
    sources = [c.value for c in at.caption if c.value.startswith("Based on")]
    if based_on is None:
        assert sources == []
    else:
        assert len(sources) == 1 and based_on.replace(" ", "") in sources[0].replace("\\", "").replace(" ", "")


def test_run_respects_limits_and_tools(data_dir: Path) -> None:
    at = app()
    at.selectbox(key="run_provider").select("offline").run()
    at.text_area(key="run_goal").input(SEED_GOAL)
    at.number_input(key="run_max_steps").set_value(1)
    at.multiselect(key="run_tools").set_value(["lookup", "calculator"])
    at.button(key="run_start").click().run()
    (record,) = records(data_dir)
    assert record["status"] == "max_steps"
    assert record["settings"]["tools"] == ["calculator", "lookup"]
    assert any("Outcome: ⏱ Step limit" in m.value and "step limit" in m.value for m in at.markdown)


@pytest.mark.parametrize("steps", [0, 1000])
def test_an_invalid_step_limit_is_refused_with_a_reason(data_dir: Path, steps: int) -> None:
    at = app()
    at.selectbox(key="run_provider").select("offline").run()
    at.text_area(key="run_goal").input("What is 2+2?")
    at.number_input(key="run_max_steps").set_value(steps).run()
    assert any("step limit must be a whole number from 1 to 50" in e.value for e in at.error)
    at.button(key="run_start").click().run()
    assert any("Cannot start" in e.value and f"it is {steps}" in e.value for e in at.error)
    assert records(data_dir) == []


def test_empty_goal_is_refused(data_dir: Path) -> None:
    at = app()
    at.selectbox(key="run_provider").select("offline").run()
    at.text_area(key="run_goal").input("   ")
    at.button(key="run_start").click().run()
    assert any("goal is empty" in e.value for e in at.error)
    assert records(data_dir) == []


def test_demo_tour(data_dir: Path) -> None:
    at = app()
    at.button(key="run_demo_start").click().run()
    assert not at.exception, [e.value for e in at.exception]
    labels = [s.label for s in at.status]
    assert len(labels) == 6
    assert "🔁" in labels[0] and "↪️" in labels[1] and "🚫" in labels[2] and "❌" in labels[3]
    assert any("Scripted demo" in i.value for i in at.info)
    (record,) = records(data_dir)
    assert record["scripted"] is True and record["status"] == "completed"
    calls = record["tool_calls"]
    assert len(calls[0]["attempts"]) == 2 and calls[0]["success"]
    assert calls[1]["fallback"]["tool"] == "search_cached" and calls[1]["success"]
    assert calls[2]["duplicate"]
    assert calls[3]["error_category"] == "validation" and calls[4]["output"] == "268"
    assert record["steps"][-1]["blocks_trimmed"] == [0, 1, 2]


def test_demo_scenario_picker(data_dir: Path) -> None:
    at = app()
    at.selectbox(key="run_demo_pick").select("malformed").run()
    assert any("not valid JSON" in m.value for m in at.markdown)
    at.button(key="run_demo_start").click().run()
    (record,) = records(data_dir)
    assert record["goal"] == demo.MALFORMED.goal and record["scripted"] and record["status"] == "completed"
    assert [c["error_category"] for c in record["tool_calls"]] == ["validation", "validation", None]
    assert len(at.status) == 4 and all(s.state == "complete" for s in at.status)


@pytest.mark.parametrize("scenario", [s.id for s in demo.SCENARIOS])
def test_every_demo_scenario_runs(data_dir: Path, scenario: str) -> None:
    prepared = demo.prepare(scenario, settings())
    finished = list(prepared.events())[-1]
    prepared.provider.assert_complete()
    assert finished.status == "completed"
    assert load_record(finished.path)["scripted"] is True


def test_a_run_survives_a_page_change_and_stop_still_works(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The run goes on in the background when its page stops drawing it (a page change ends the
    script at the next st call); the sidebar elsewhere says so; back on Run it is drawn again,
    and our Stop cancels it."""
    import threading
    import time

    from ui import run_view as _run_view

    release = threading.Event()
    started = threading.Event()

    class Slow(ScriptedProvider):
        instant = False  # called in a worker, like a real model: a Stop does not wait for it

        def complete(self, request):  # type: ignore[no-untyped-def]
            if request.step == 2:  # the second model call waits (a Stop cuts the wait short)
                started.set()
                release.wait(20)
            return super().complete(request)

    turns = [
        {"tool_calls": [{"name": "calculator", "arguments": {"expression": "6*7"}}]},
        {"text": "42"},
    ]
    import agent_core.providers as providers

    monkeypatch.setattr(providers, "make_provider", lambda *a, **k: Slow(turns))
    original = _run_view.RunView.handle

    def leave_after_step_1(self: Any, event: Any) -> None:
        original(self, event)
        if isinstance(event, StepFinished) and event.step == 1:
            raise StopException()  # what opening another page does at the next st call

    monkeypatch.setattr(_run_view.RunView, "handle", leave_after_step_1)
    at = app()
    at.selectbox(key="run_provider").select("offline").run()
    at.text_area(key="run_goal").input("What is 6*7?")
    at.button(key="run_start").click().run()
    assert started.wait(10)
    (record,) = records(data_dir)
    assert record["status"] == "running"  # not cancelled by the page change
    at.switch_page("pages/history.py").run()  # (AppTest runs the page without app.py's sidebar)
    assert not at.exception
    # Back on Run, it is drawn again from its events (the patched view leaves again after step 1).
    at.switch_page("pages/run.py").run()
    assert at.status and at.status[0].label.startswith("Step 1")
    monkeypatch.setattr(_run_view.RunView, "handle", original)
    started_at = time.monotonic()
    at.button(key="run_stop").click().run()
    assert time.monotonic() - started_at < 5  # the waiting model call was cut short
    assert not at.exception, [e.value for e in at.exception]
    assert any("Stopped" in w.value for w in at.warning)
    (record,) = records(data_dir)
    assert record["status"] == "cancelled" and len(record["steps"]) == 1
    release.set()


def test_model_loading_progress(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A provider that loads first (the local model) shows progress, then says it is ready."""
    import agent_core.providers as providers
    from agent_core.providers.base import LoadProgress

    class Loading(ScriptedProvider):
        def prepare(self):  # type: ignore[no-untyped-def]
            yield LoadProgress("joining", 1, 2, "part 1 of 2")
            yield LoadProgress("loading", 2, 2, "weights loaded")

    monkeypatch.setattr(providers, "make_provider", lambda *a, **k: Loading([{"text": "ready"}]))
    at = app()
    at.selectbox(key="run_provider").select("offline").run()
    at.text_area(key="run_goal").input("hello")
    at.button(key="run_start").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("Model ready" in c.value and "weights loaded" in c.value for c in at.caption)
    assert records(data_dir)[0]["status"] == "completed"


# --- History page -------------------------------------------------------------------------------


def test_history_empty_state(data_dir: Path) -> None:
    at = app("pages/history.py")
    assert any("No runs yet" in i.value for i in at.info)
    assert at.page_link[0].proto.page.endswith("run") or "run" in at.page_link[0].value.lower()
    assert not at.dataframe


def test_history_table_and_filters(data_dir: Path) -> None:
    first = offline_run(SEED_GOAL)
    second = offline_run("What is (24*7)+100?", max_steps=1)
    third = scripted_run("Scripted weather", [{"text": "done"}])
    at = app("pages/history.py")
    table = at.dataframe[0].value
    assert list(table["run_id"]) == [third["run_id"], second["run_id"], first["run_id"]]
    assert set(table["status"]) == {"Answered", "Step limit"}  # the Run page's words (records.outcome)
    row = table.set_index("run_id").loc[first["run_id"]]
    assert row["provider"] == "offline" and row["steps"] == 3 and row["tool_calls"] == 2
    assert row["tokens"] != row["tokens"]  # the offline model's count is an estimate: History shows none (issue 35)
    assert {"started_at", "goal", "model", "cost_usd", "duration_s"} <= set(table.columns)

    at.text_input(key="history_text").input("24*7").run()
    assert list(at.dataframe[0].value["run_id"]) == [second["run_id"]]
    at.text_input(key="history_text").input("").run()
    at.multiselect(key="history_providers").set_value(["scripted"]).run()
    assert list(at.dataframe[0].value["run_id"]) == [third["run_id"]]
    at.multiselect(key="history_providers").set_value([]).run()
    at.multiselect(key="history_statuses").set_value(["max_steps"]).run()
    assert list(at.dataframe[0].value["run_id"]) == [second["run_id"]]
    at.multiselect(key="history_statuses").set_value([]).run()
    first_day = ui.date_bounds(table["started_at"])[0]
    at.date_input(key="history_days").set_value((first_day - timedelta(days=30), first_day - timedelta(days=20))).run()
    assert at.dataframe[0].value.empty

    # Opening a run from the picker sets ?run=<id> and shows its detail.
    at.date_input(key="history_days").set_value(ui.date_bounds(table["started_at"])).run()
    at.selectbox(key="history_pick").select(first["run_id"]).run()
    assert at.query_params["run"] == [first["run_id"]] or at.query_params["run"] == first["run_id"]
    assert any(m.label == "Outcome" and "Answered" in m.value for m in at.metric)


def test_history_run_detail_from_query_param(data_dir: Path) -> None:
    prepared = demo.prepare("trimming", settings())
    finished = list(prepared.events())[-1]
    at = app("pages/history.py", {"run": finished.run_id})
    metrics = {m.label: m.value for m in at.metric}
    assert "Answered" in metrics["Outcome"] and metrics["Steps"] == "6 / 10"
    assert metrics["Tool calls"] == "5"
    assert any("scripted demo" in s.value for s in at.subheader)
    frames = [d.value for d in at.dataframe]
    ledger = next(f for f in frames if "made_in_step" in f.columns)
    assert len(ledger) == 5
    assert list(ledger.loc[0, ["step 2", "step 3", "step 4", "step 6"]]) == ["sent", "sent", "trimmed", "trimmed"]
    assert list(ledger.loc[4, ["step 5", "step 6"]]) == ["", "sent"]
    calls = next(f for f in frames if "call_id" in f.columns and "result" in f.columns)
    assert list(calls["tool"]) == ["lookup", "lookup", "lookup", "calculator", "word_count"]
    assert {b.label for b in at.get("download_button")} >= {"Record (JSON)", "Tool calls (CSV)"}
    assert len(at.status) == 6 and at.chat_message
    timeline = json.loads(at.get("vega_lite_chart")[0].proto.spec)
    assert timeline["encoding"]["y"]["sort"] == [f"step {n}" for n in range(1, 7)]
    # Opened on the run: "← all runs" on top, no filters or table until it is clicked.
    assert at.button(key="history_back") and not [t for t in at.text_input if t.key == "history_text"]
    at.button(key="history_back").click().run()
    assert "run" not in at.query_params and at.text_input(key="history_text") is not None


def test_history_unknown_run(data_dir: Path) -> None:
    offline_run("hello")
    at = app("pages/history.py", {"run": "no-such-run"})
    (error,) = at.error
    assert error.value.startswith("No run with this id — it may have been deleted or the link is incomplete")
    assert len(at.dataframe[0].value) == 1  # the list shows below


def test_history_pages_a_long_list_and_orders_all_of_it(data_dir: Path) -> None:
    base = offline_run("What is (24*7)+100?")
    start = datetime(2026, 3, 1, tzinfo=timezone.utc)
    ids = []
    for n in range(1, 1101):  # 1,101 runs: three pages of 500
        clone = dict(base, run_id=f"01000000-0000-7000-8000-{n:012d}", goal=f"clone {n}", cost_usd=n / 10_000)
        clone["started_at"] = (start + timedelta(minutes=n)).isoformat()
        (data_dir / "runs" / f"{clone['run_id']}.json").write_text(json.dumps(clone), encoding="utf-8")
        ids.append(clone["run_id"])
    at = app("pages/history.py")
    table = at.dataframe[0].value
    assert len(table) == 500 and table["run_id"].iloc[0] == base["run_id"] and table["run_id"].iloc[1] == ids[-1]
    page = at.number_input(key="history_page")
    assert page.value == 1 and page.max == 3
    assert any("Runs 1–500 of 1,101 matching" in c.value for c in at.caption)
    page.set_value(3).run()
    table = at.dataframe[0].value
    assert len(table) == 101 and list(table["run_id"].iloc[-2:]) == [ids[1], ids[0]]
    assert any("Runs 1,001–1,101" in c.value for c in at.caption)
    # Ordering sorts every matching run, then pages again from the first page.
    at.selectbox(key="history_order").select("Most expensive").run()
    assert at.number_input(key="history_page").value == 1
    assert list(at.dataframe[0].value["goal"].iloc[:2]) == ["clone 1100", "clone 1099"]
    at.selectbox(key="history_order").select("Oldest").run()
    assert list(at.dataframe[0].value["goal"].iloc[:2]) == ["clone 1", "clone 2"]
    # Few enough matches for one page: no page box, the plain count.
    at.text_input(key="history_text").input("clone 99").run()
    assert "history_page" not in [n.key for n in at.number_input]  # the cost and retries filters stay
    assert len(at.dataframe[0].value) == 11  # clone 99 and 990–999
    assert any("of 1,101 runs shown" in c.value for c in at.caption)
    # The picker offers the page in view; a row picked there opens the run.
    options = at.selectbox(key="history_pick").options
    assert len(options) == len(at.dataframe[0].value)


def test_history_shows_interrupted_and_corrupt(data_dir: Path) -> None:
    done = offline_run("hello")
    dead = dict(load_record(Path(data_dir / "runs" / f"{done['run_id']}.json")))
    dead.update(
        run_id="01000000-0000-7000-8000-000000000000",
        status="running",
        owner={"pid": 2**22 + 12345, "host": __import__("socket").gethostname()},
    )
    (data_dir / "runs" / f"{dead['run_id']}.json").write_text(json.dumps(dead), encoding="utf-8")
    (data_dir / "runs" / "broken.json").write_text("{not json", encoding="utf-8")
    (data_dir / "runs" / "foreign.json").write_text('{"hello": 1}', encoding="utf-8")
    at = app("pages/history.py")
    assert any("could not be read" in w.value for w in at.warning)
    problems = at.dataframe[0].value
    assert set(problems["file"]) == {"broken.json", "foreign.json"}
    table = at.dataframe[1].value.set_index("run_id")
    assert table.loc[dead["run_id"], "status"] == "Failed"  # interrupted: the Run page's word


def test_history_renders_hostile_text_as_data(data_dir: Path) -> None:
    record = scripted_run(
        f"goal {HOSTILE}",
        [
            {
                "text": f"model {HOSTILE}",
                "tool_calls": [{"name": "![t](http://127.0.0.1:9/t.png)", "arguments": {"q": HOSTILE}}],
            },
            {"tool_calls": [{"name": "word_count", "arguments": {"text": HOSTILE}}]},
            {"text": f"answer {HOSTILE}"},
        ],
    )
    at = app("pages/history.py", {"run": record["run_id"]})
    assert not at.exception
    for text in markdown_texts(at):
        assert live_markup(text) == [], text
    assert any(HOSTILE in t.value for t in at.text)  # shown, literally


# --- Tool stats page ----------------------------------------------------------------------------


def test_tool_stats_empty_state(data_dir: Path) -> None:
    at = app("pages/tool_stats.py")
    assert any("No runs yet" in i.value for i in at.info)
    assert at.page_link


def test_tool_stats_numbers(data_dir: Path) -> None:
    scripted_run(
        "a",
        [
            {"tool_calls": [{"name": "calculator", "arguments": {"expression": "1+1"}}]},
            {"tool_calls": [{"name": "calculator", "arguments": {"expression": "1+1"}}]},
            {"tool_calls": [{"name": "get_weather", "arguments": {"city": "Seoul", "unit": "kelvin"}}]},
            {"tool_calls": [{"name": "get_weather", "arguments": {"city": "Seoul"}}]},
            {"text": "done"},
        ],
    )
    offline_run("What is (24*7)+100?")
    at = app("pages/tool_stats.py")
    assert not at.exception
    per_tool = at.dataframe[0].value.set_index("tool")
    assert per_tool.loc["calculator", "calls"] == 3
    assert per_tool.loc["calculator", "success_rate"] == pytest.approx(2 / 3)
    assert per_tool.loc["calculator", "duplicates"] == 1
    assert per_tool.loc["calculator", "err_duplicate"] == 1
    assert per_tool.loc["get_weather", "calls"] == 2
    assert per_tool.loc["get_weather", "err_validation"] == 1
    assert per_tool.loc["get_weather", "success_rate"] == pytest.approx(0.5)
    # The tool itself never failed: its misses were the model's (bad arguments, a refused repeat).
    assert per_tool.loc["get_weather", "reliable_rate"] == pytest.approx(1.0)
    assert per_tool.loc["get_weather", "model_mistakes"] == 1
    assert per_tool.loc["calculator", "reliable_rate"] == pytest.approx(1.0)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Tool calls"] == "5" and metrics["Success rate"] == "60%"
    by_provider = at.dataframe[1].value.set_index("provider")
    assert by_provider.loc["offline", "calls"] == 1 and by_provider.loc["scripted", "calls"] == 4
    charts = [json.loads(c.proto.spec) for c in at.get("vega_lite_chart")]
    # Success rate, durations, and failures by category (a duplicate and a validation error).
    assert [c["encoding"]["x"]["field"] for c in charts] == ["success_rate", "ms", "failed"]
    assert all(c["mark"]["type"] == "bar" and "step" in c["height"] for c in charts)
    assert charts[1]["encoding"]["yOffset"]["sort"] == ["p50", "mean", "p95"]
    at.multiselect(key="stats_providers").set_value(["offline"]).run()
    assert list(at.dataframe[0].value["tool"]) == ["calculator"]
    at.multiselect(key="stats_providers").set_value([]).run()
    at.multiselect(key="runs_sources").set_value(["own"]).run()  # the Source filter: your runs only
    assert {m.label: m.value for m in at.metric}["Tool calls"] == "1"


def test_tool_stats_count_who_chose_the_calls(data_dir: Path) -> None:
    """The scripted model's calls are the model's; the offline demo's are the workbench's (a rule
    chose them); an older record's say neither. Coverage says a tool only the workbench called is
    no evidence the model can use it."""
    scripted_run(
        "a",
        [
            {"tool_calls": [{"name": "get_weather", "arguments": {"city": "Seoul"}}]},
            {"tool_calls": [{"name": "calculator", "arguments": {"expression": "2*3"}}]},
            {"text": "done"},
        ],
    )
    offline_run("What is (24*7)+100?")
    older = offline_run("What is 2+2?")
    for call in older["tool_calls"]:
        call.pop("origin"), call.pop("harness_rule", None)
    (data_dir / "runs" / f"{older['run_id']}.json").write_text(json.dumps(older), encoding="utf-8")
    at = app("pages/tool_stats.py")
    assert not at.exception
    per_tool = at.dataframe[0].value.set_index("tool")
    assert per_tool.loc["calculator", ["calls", "by_model", "by_harness"]].tolist() == [3, 1, 1]
    assert per_tool.loc["get_weather", ["calls", "by_model", "by_harness"]].tolist() == [1, 1, 0]
    assert list(per_tool.columns[:3]) == ["calls", "by_model", "by_harness"]
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["🧠 Chosen by the model"] == "2" and metrics["⚙ Called by the workbench"] == "1"
    assert any("🧠 chosen by the model · ⚙ called by the workbench for the model" in c.value for c in at.caption)
    by_provider = at.dataframe[1].value.set_index("provider")
    assert by_provider.loc["offline", ["calls", "by_model", "by_harness"]].tolist() == [2, 0, 1]
    assert by_provider.loc["scripted", ["calls", "by_model", "by_harness"]].tolist() == [2, 2, 0]
    coverage = next(d.value for d in at.dataframe if "calls_by_model" in d.value.columns)
    offline_calc = coverage[(coverage["provider"] == "offline") & (coverage["tool"] == "calculator")].iloc[0]
    assert (offline_calc["runs_chosen"], offline_calc["runs_by_model"], offline_calc["calls_by_harness"]) == (2, 0, 1)
    assert not offline_calc["harness_only"]  # one of its calls did not say who chose it
    # Who decided, as a filter: only the workbench's calls, then only those that did not say.
    at.multiselect(key="stats_origins").set_value(["harness"]).run()
    assert at.multiselect(key="stats_origins").format_func("harness") == "⚙ the workbench"
    assert at.dataframe[0].value[["tool", "calls", "by_harness"]].values.tolist() == [["calculator", 1, 1]]
    at.multiselect(key="stats_origins").set_value([""]).run()
    assert {m.label: m.value for m in at.metric}["Tool calls"] == "1"
    assert {m.label: m.value for m in at.metric}["🧠 Chosen by the model"] == "0"
    at.multiselect(key="stats_origins").set_value([]).run()
    # With the older record gone, calculator on offline was only ever the workbench's: said so.
    (data_dir / "runs" / f"{older['run_id']}.json").unlink()
    at.run()
    warning = next(w.value for w in at.warning if "Only the workbench called" in w.value)
    assert "calculator (offline · " in warning and "no evidence the model can use them" in warning


# --- Tools page ---------------------------------------------------------------------------------


def test_tools_page_lists_schemas(data_dir: Path) -> None:
    at = app("pages/tools.py")
    names = build_default_registry(settings()).names()
    assert len([e for e in at.expander if e.label.startswith("**")]) == len(names)
    schemas = [json.loads(c.value) for c in at.code if c.language == "json"]
    assert len(schemas) == 3 * len(names)
    responses, chat, anthropic = schemas[:3]
    assert responses["type"] == "function" and responses["name"] == names[0] and "parameters" in responses
    assert chat["function"]["name"] == names[0]
    assert anthropic["name"] == names[0] and anthropic["input_schema"] == responses["parameters"]


def test_tools_page_every_form(data_dir: Path) -> None:
    at = app("pages/tools.py")
    for name in build_default_registry(settings()).names():
        at.selectbox(key="tools_pick").select(name).run()
        assert not at.exception, (name, [e.value for e in at.exception])
        assert any(b.label == "Call the tool" for b in at.button)


def test_tools_page_direct_call(data_dir: Path) -> None:
    at = app("pages/tools.py")
    at.selectbox(key="tools_pick").select("calculator").run()
    at.text_input(key="tools_arg_calculator_expression").input("(24*7)+100")
    at.button[0].click().run()  # the form's submit button
    assert not at.exception, [e.value for e in at.exception]
    assert any(c.value == "268" for c in at.code)
    entry = json.loads(at.json[0].value)
    assert entry["tool"] == "calculator" and entry["success"] and entry["output"] == "268"
    assert records(data_dir) == []  # a direct call is not a run


def test_tools_page_enum_and_raw_json(data_dir: Path) -> None:
    at = app("pages/tools.py")
    at.selectbox(key="tools_pick").select("get_weather").run()
    assert at.selectbox(key="tools_arg_get_weather_unit").options == ["celsius", "fahrenheit"]
    at.toggle(key="tools_raw").set_value(True).run()
    at.text_area(key="tools_raw_get_weather").input('{"city": "Seoul", unit: 1}')
    at.button[0].click().run()
    entry = json.loads(at.json[0].value)
    assert not entry["success"] and entry["error_category"] == "validation"
    assert "not valid JSON" in entry["output"]
