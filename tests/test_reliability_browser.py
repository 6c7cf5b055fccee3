"""Reliability: hostile text stays inert in a real browser.

tests/test_browser.py checks a first set of payloads. This one is broader: about twenty
injection vectors (HTML tags with event handlers, SVG, iframes, stylesheets and ``@import``,
meta refresh, object/embed/video, ``javascript:`` links, Markdown inline and reference images,
autolinks, LaTeX ``\\href``/``\\includegraphics``, Streamlit directives, entities) placed
everywhere a run can carry text:

- a LIVE run on the Run page through the real openai SDK (openai-chat provider against the local
  fake server): hostile goal, model text, tool names, argument keys and values, tool output
  (a workspace file), and answer;
- a run saved by the engine with hostile goal, model name, tool names, outputs and error message,
  opened in History (table and ``?run=<id>`` detail, every tab, every expander) and Tool stats;
- a bad file in the runs folder whose *name* is hostile (the History warning lists it).

A local listener counts every request it gets (it must see none), the browser's own request log
must hold none to it, and ``window.__pwned`` (set by every script payload) must stay undefined.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import browser_kit as kit
import pytest
from fake_llm_server import FakeLLMServer, chat_body

from agent_core.errors import ProviderError
from agent_core.providers.scripted import ScriptedProvider
from agent_core.run.loop import run_to_end
from agent_core.settings import Settings
from agent_core.tools.builtins import build_default_registry

pytestmark = [pytest.mark.browser, kit.needs_chromium]


def payload(port: int) -> str:
    """One string holding every vector; each would load http://127.0.0.1:<port>/… or set __pwned."""
    base = f"http://127.0.0.1:{port}"
    return (
        f'<img src="{base}/img.png" onerror="window.__pwned=1"> '
        f"<script>window.__pwned=1;fetch('{base}/script')</script> "
        f'<svg onload="window.__pwned=1"><image href="{base}/svg.png"/></svg> '
        f'<iframe src="{base}/iframe"></iframe> '
        f'<link rel="stylesheet" href="{base}/style.css"> '
        f'<style>@import url("{base}/import.css"); body {{ background: url("{base}/bg.png") }}</style> '
        f'<meta http-equiv="refresh" content="0;url={base}/refresh"> '
        f'<object data="{base}/object"></object><embed src="{base}/embed"> '
        f'<video src="{base}/video.mp4" autoplay></video><audio src="{base}/audio.mp3" autoplay></audio> '
        f'<a href="javascript:window.__pwned=1">click</a> <base href="{base}/base/"> '
        f"![md image]({base}/md.png) ![ref image][r] <{base}/autolink> "
        f"$\\href{{{base}/latex}}{{x}}$ $\\includegraphics{{{base}/tex.png}}$ "
        f":red[styled] :material/warning: &lt;img src={base}/entity.png&gt; "
        f"<img src=x onerror=window.__pwned=1>\n\n[r]: {base}/ref.png\n"
    )


@pytest.fixture
def listener() -> Iterator[tuple[int, list[str]]]:
    with kit.counting_listener() as found:
        yield found


_OPEN_ALL = """async () => {
    const pause = (ms) => new Promise((done) => setTimeout(done, ms));
    const expand = () => document.querySelectorAll("[data-testid='stExpander'] summary").forEach((s) => {
        if (s.getAttribute("aria-expanded") !== "true") s.click();
    });
    expand();
    for (const tab of document.querySelectorAll("[role='tab']")) {
        tab.click();
        await pause(150);
        expand();
        await pause(100);
    }
}"""


def open_everything(page: Any) -> None:
    """Click every tab and open every expander / step status, so all their content is drawn."""
    page.evaluate(_OPEN_ALL)
    page.wait_for_timeout(400)


LOADERS = "img, iframe, frame, object, embed, video, audio, source, link[rel='stylesheet'], base, meta[http-equiv]"


def assert_inert(page: Any, port: int, seen: list[str], hits: list[str], where: str) -> None:
    assert page.evaluate("() => window.__pwned") is None, f"a script payload ran on {where}"
    loaders = page.evaluate(
        f"() => Array.from(document.querySelectorAll({LOADERS!r})).map(e => e.outerHTML)"
        f".filter(h => h.includes('127.0.0.1:{port}') || h.includes('onerror') || h.includes('javascript:'))"
    )
    assert loaders == [], (where, loaders)
    assert not page.locator("a[href^='javascript:']").count(), where
    assert [u for u in seen if f":{port}" in u] == [], (where, seen)
    assert hits == [], (where, hits)


def test_hostile_text_stays_inert_everywhere(tmp_path: Path, listener: tuple[int, list[str]]) -> None:
    port, hits = listener
    evil = payload(port)
    short = f"<img src=x onerror=window.__pwned=1>![t](http://127.0.0.1:{port}/t.png)"
    data_dir = kit.fresh_data_dir(tmp_path / "agent_data")
    (data_dir / "workspace" / "evil.txt").write_text(f"Evil notes\n{evil}\nend\n", encoding="utf-8")
    # A bad file whose name is hostile: the History warning lists it by name.
    (data_dir / "runs" / "<img src=x onerror=window.__pwned=1>.json").write_text("{not json")
    # A run saved by the engine with hostile text in every field a model or tool fills.
    config = Settings(data_dir=data_dir, retry_delays=(0.0,), search_web_failure_rate=0.0)
    crafted = run_to_end(
        f"Crafted goal {evil}",
        provider=ScriptedProvider(
            [
                {
                    "text": f"model says {evil}",
                    "tool_calls": [
                        {"name": short, "arguments": {short: evil}},
                        {"name": "word_count", "arguments": {"text": evil}},
                        {"name": "read_file", "arguments": {"path": "evil.txt"}},
                    ],
                },
                ProviderError(f"the model failed: {evil}", provider="scripted", error_type=short),
            ],
            model=short,
        ),
        registry=build_default_registry(config),
        settings=config,
        scripted=True,
    )
    assert crafted["status"] == "error"

    log = tmp_path / "streamlit.log"  # beside the data folder, not in it
    with (
        FakeLLMServer() as llm,
        kit.streamlit_app(data_dir, {"RETRY_DELAYS": "0", "OPENAI_COMPAT_BASE_URL": llm.url("/v1")}, log=log) as app,
    ):
        # The live run: the real openai SDK parses hostile model output from the fake server.
        llm.push(
            chat_body(
                text=f"live model text {evil}",
                calls=[
                    ("call_1", "word_count", json.dumps({"text": evil})),
                    ("call_2", short, '{"x": 1}'),
                    ("call_3", "read_file", '{"path": "evil.txt"}'),
                ],
                model=short,
            )
        )
        llm.push(chat_body(text=f"live answer {evil}", model=short))
        seen: list[str] = []
        with (
            kit.chromium(args=("--no-sandbox", "--disable-gpu")) as browser,
            kit.browser_page(browser, on_request=lambda request: seen.append(request.url)) as page,
        ):
            page.goto(app.url + "/")
            page.get_by_text("Run an agent").first.wait_for(timeout=45_000)
            kit.wait_idle(page)
            kit.choose_provider(page, "openai-chat")
            kit.start_run(page, f"Live goal {evil}")
            page.get_by_text("Outcome:").first.wait_for()
            kit.wait_idle(page)
            assert llm.remaining == 0, "the live run did not reach the model twice"
            open_everything(page)
            body = page.locator("body").inner_text()
            assert "live answer" in body and f"127.0.0.1:{port}/md.png" in body  # shown, as text
            assert_inert(page, port, seen, hits, "the Run page (live)")

            for where in (f"/history?run={crafted['run_id']}", "/history", "/tool_stats"):
                page.goto(app.url + where)
                page.get_by_role("heading").first.wait_for()
                kit.wait_idle(page)
                assert not page.get_by_test_id("stException").count(), where
                open_everything(page)
                assert_inert(page, port, seen, hits, where)
            page.wait_for_timeout(1000)  # anything lazy (images, refreshes) has had time to fire
            assert_inert(page, port, seen, hits, "the last page")
    kit.assert_clean_log(log)
    assert hits == []
