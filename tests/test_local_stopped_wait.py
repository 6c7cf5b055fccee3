"""A run that waits for a stopped run to let go of the local model says so.

A Stop reaches llama.cpp between two prompt batches only, and the server finishes the batch it had
begun: the next run waits for that. It says "the local model is finishing the stopped run, about
N s" (the page, with the offline model offered; the CLI, one line). No real model here: the fake
llama.cpp server of tests/local_kit.py, driven step by step.
"""

from __future__ import annotations

import io
import re
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import test_pages
from streamlit.testing.v1 import AppTest
from test_pages import records

from agent_core.errors import ProviderError
from agent_core.providers import local, model_wait
from agent_core.providers.base import ModelRequest
from agent_core.providers.local.handover import DEFAULT_MS_PER_TOKEN, GENERATION_S, Handover
from agent_core.providers.scripted import ScriptedProvider
from agent_core.settings import Settings
from agent_core.tools.builtins import build_default_registry
from tests.local_kit import fake_model as model_path  # noqa: F401 (a fixture)
from tests.local_kit import install_engine

# --- The estimate ---------------------------------------------------------------------------------


def _progress(total: int, processed: int, time_ms: float, cache: int = 0) -> dict[str, Any]:
    return {"prompt_progress": {"total": total, "cache": cache, "processed": processed, "time_ms": time_ms}}


def test_the_estimate_is_the_batch_under_way_and_the_one_the_server_began() -> None:
    handover = Handover(64)
    cancel = threading.Event()
    handover.took(cancel, now=100.0)
    assert handover.stopped_run_left(now=100.0) is None  # a live run holds the model: not ours to say
    # 100 cached tokens, then 128 computed in 12.8 s: 100 ms a token, 6.4 s a batch.
    handover.report(_progress(4000, 228, 12_800, cache=100), now=110.0)
    cancel.set()
    # 2 s into the batch under way: 4.4 s to its end, then the batch begun in the server (6.4 s).
    assert handover.stopped_run_left(now=112.0) == pytest.approx(4.4 + 6.4)
    # Past the expected end (a loaded machine): still at least a second, never "about 0 s".
    assert handover.stopped_run_left(now=130.0) == pytest.approx(6.4)
    # The call returns at the next report; the batch begun in the server goes on after it.
    handover.report(_progress(4000, 292, 19_200, cache=100), now=116.4)
    handover.released(now=116.4)
    assert handover.stopped_run_left(now=118.4) == pytest.approx(4.4)
    handover.took(None, now=119.0)  # the waiting run took the model: the tail still counts
    assert handover.stopped_run_left(now=120.0) == pytest.approx(2.8)
    assert handover.stopped_run_left(now=123.0) is None  # over


def test_the_estimate_before_any_report_and_while_generating() -> None:
    handover = Handover(64)
    cancel = threading.Event()
    cancel.set()
    handover.took(cancel, now=0.0)  # stopped before its first report: one batch at the default speed
    assert handover.stopped_run_left(now=0.5) == pytest.approx(64 * DEFAULT_MS_PER_TOKEN / 1000 - 0.5)
    handover.report({"choices": [{"delta": {"content": "{"}}]}, now=1.0)
    assert handover.stopped_run_left(now=1.0) == GENERATION_S  # its next token ends it
    handover.released(now=1.2)
    assert handover.stopped_run_left(now=1.3) is None  # a stopped generation leaves nothing behind
    # The last batch of a prompt is shorter: 10 tokens left, so no batch after it.
    handover.took(cancel, now=2.0)
    handover.report(_progress(138, 128, 1280), now=2.0)
    assert handover.stopped_run_left(now=2.0) == pytest.approx(1.0)  # 0.1 s, shown as at least 1


def test_the_message() -> None:
    wait = model_wait.ModelWait(seconds_left=10.2, waited_s=3.0)
    assert wait.message == "the local model is finishing the stopped run, about 11 s"
    assert ScriptedProvider([]).model_wait() is None  # a provider that cannot tell: the Protocol's default


# --- The provider, with a fake llama.cpp server ----------------------------------------------------


class SteppedServer:
    """A fake llama.cpp server whose calls each run a script given the callback (one per call)."""

    def __init__(self, scripts: list[Callable[[Callable[[Any], bool]], None]]) -> None:
        self.scripts = list(scripts)

    def handle_chat_completions(self, body: dict[str, Any], callback: Any = None) -> Any:
        self.scripts.pop(0)(callback)
        return None


def _answer(callback: Callable[[Any], bool], text: str) -> None:
    content = 'Thought: a greeting\n{"reply": "' + text + '"}'
    callback({"choices": [{"index": 0, "delta": {"content": content}, "finish_reason": None}]})
    callback(
        {
            "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
            "timings": {"cache_n": 0, "prompt_n": 20, "predicted_n": 5},
        }
    )


def _wait_until(check: Callable[[], Any], timeout: float = 5.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.01)
    raise AssertionError("timed out")


def test_the_next_run_says_it_waits_for_the_stopped_one_and_the_cli_prints_it_once(
    model_path: Path,  # noqa: F811 (the fixture imported above)
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    in_batch = threading.Event()  # the stopped run is in the middle of a prompt batch
    batch_done = threading.Event()
    own_batch = threading.Event()  # the waiting run's call reached the server
    own_done = threading.Event()

    def long_prompt(callback: Callable[[Any], bool]) -> None:
        callback(_progress(3000, 0, 0))
        callback(_progress(3000, 64, 12_800))  # 200 ms a token: 12.8 s a batch
        in_batch.set()
        batch_done.wait(5)
        if callback(_progress(3000, 128, 25_600)):  # the Stop is seen here
            return
        raise AssertionError("the stopped run went on")

    def short_prompt(callback: Callable[[Any], bool]) -> None:
        callback(_progress(20, 0, 0))  # queued behind the batch the server still finishes
        own_batch.set()
        own_done.wait(5)
        callback(_progress(20, 20, 300))
        _answer(callback, "144")

    install_engine(monkeypatch, model_path, SteppedServer([long_prompt, short_prompt]))
    registry = build_default_registry(Settings.from_env(dotenv=False))

    def ask(provider: local.LocalProvider, goal: str, cancel: threading.Event | None = None) -> ModelRequest:
        return ModelRequest(instructions="sys", goal=goal, blocks=[], tools=list(registry), step=1, cancel=cancel)

    stopped = local.LocalProvider(env={"LOCAL_MODEL_PATH": str(model_path)})
    waiting = local.LocalProvider(env={"LOCAL_MODEL_PATH": str(model_path)})
    assert list(waiting.prepare()) == [] and waiting.model_wait() is None
    stop = threading.Event()
    results: dict[str, Any] = {}

    def first() -> None:
        try:
            stopped.complete(ask(stopped, "hello", stop))  # (a long goal, as the fake server says)
        except ProviderError as exc:
            results["first"] = exc

    def second() -> None:
        results["second"] = waiting.complete(ask(waiting, "hello"))

    threads = [threading.Thread(target=first)]
    threads[0].start()
    in_batch.wait(5)
    threads.append(threading.Thread(target=second))
    threads[1].start()
    out = io.StringIO()
    over = threading.Event()
    model_wait.watch(waiting.model_wait, over, out.write)
    time.sleep(0.6)
    assert waiting.model_wait() is None  # waiting for a live run: nothing to say about a Stop
    stop.set()
    wait = _wait_until(waiting.model_wait)
    # The rest of the batch under way and one more: about 2 x 12.8 s, less the time since the report.
    assert 20 < wait.seconds_left <= 25.6, wait
    assert re.fullmatch(r"the local model is finishing the stopped run, about \d+ s", wait.message)
    time.sleep(0.6)  # (the CLI's watch looks twice a second)
    batch_done.set()  # the stopped run's call returns; its last batch goes on in the server
    own_batch.wait(5)
    assert "stopped" in str(results.get("first") or _wait_until(lambda: results.get("first")))
    tail = waiting.model_wait()
    assert tail is not None and tail.seconds_left <= 12.8  # one batch at most now
    own_done.set()
    threads[1].join(5)
    assert results["second"].text == "144"
    assert waiting.model_wait() is None
    time.sleep(0.6)
    over.set()
    lines = out.getvalue().splitlines()
    assert len(lines) == 1 and "the local model is finishing the stopped run, about" in lines[0], lines
    assert "--provider offline" in lines[0]


# --- The Run page ----------------------------------------------------------------------------------


def _wait_offer() -> None:
    """The live view's note, drawn for a run whose model call waits for a stopped run."""
    import streamlit as st

    from agent_core.providers.model_wait import ModelWait
    from ui import live as _live

    class Waiting:
        def model_wait(self) -> ModelWait:
            return ModelWait(seconds_left=7.3, waited_s=4.0)

    run = st.session_state.get("run_bg")
    if run is None:
        run = st.session_state["run_bg"] = _live.BackgroundRun(
            goal="What is 12*12?", max_steps=4, max_context_blocks=3, provider=Waiting(), tools=["calculator"]
        )
    _live._WaitNote(st.container()).update(run)
    chosen = st.session_state.get(_live.OFFLINE_KEY)
    st.write(f"chosen: {chosen.goal if chosen else None}; stopped: {run.cancel.is_set()}")


def test_the_run_page_says_so_and_offers_the_offline_model() -> None:
    at = AppTest.from_function(_wait_offer).run()
    assert not at.exception, [e.value for e in at.exception]
    (note,) = at.warning
    assert note.value.startswith("The local model is finishing the stopped run, about 8 s (waiting 4 s so far).")
    (offer,) = at.button
    assert offer.label == "Use the instant demo"
    offer.click().run()
    assert "chosen: What is 12*12?; stopped: True" in [m.value for m in at.markdown]


def test_the_offer_runs_the_same_goal_on_the_offline_model(data_dir: Path) -> None:
    from ui import live as _live

    at = test_pages.app("pages/run.py")
    waited = _live.BackgroundRun(goal="What is 12*12?", max_steps=4, max_context_blocks=3, tools=["calculator"])
    waited.done.set()  # (its Stop ended it)
    at.session_state[_live.OFFLINE_KEY] = waited
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("instead of waiting" in i.value for i in at.info)
    (record,) = records(data_dir)
    assert record["provider"] == "offline" and record["goal"] == "What is 12*12?"
    assert record["settings"]["max_steps"] == 4 and record["status"] == "completed" and "144" in record["answer"]


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """tests/test_pages.py's private data folder (a workspace copy, no retry waits)."""
    return test_pages.data_dir.__wrapped__(tmp_path, monkeypatch)
