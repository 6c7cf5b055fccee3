"""Reliability: hostile text stays inert in a real browser (issue 7, case 9).

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

import contextlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from fake_llm_server import FakeLLMServer, chat_body

from agent_core.errors import ProviderError
from agent_core.loop import run_to_end
from agent_core.providers.scripted import ScriptedProvider
from agent_core.settings import Settings
from agent_core.tools.builtins import build_default_registry

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"{CHROMIUM} is missing (apt-get install chromium)"),
]
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")


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


class _Counter(BaseHTTPRequestHandler):
    hits: list[str] = []

    def _any(self) -> None:
        type(self).hits.append(f"{self.command} {self.path}")
        self.send_response(204)
        self.end_headers()

    do_GET = do_POST = do_HEAD = do_OPTIONS = _any

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def listener() -> Iterator[tuple[int, list[str]]]:
    _Counter.hits = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Counter)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server.server_address[1], _Counter.hits
    finally:
        server.shutdown()
        server.server_close()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def streamlit_app(data_dir: Path, env: dict[str, str]) -> Iterator[str]:
    """``streamlit run app.py`` on a free port; stopped by its own pid afterwards."""
    port = _free_port()
    log = data_dir.parent / "streamlit.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true", "--server.port",
             str(port), "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
            cwd=ROOT, stdout=out, stderr=subprocess.STDOUT,
            env={**os.environ, "AGENT_DATA_DIR": str(data_dir), "RETRY_DELAYS": "0", **env},
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as resp:
                    if resp.read().strip() == b"ok":
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("streamlit did not start:\n" + log.read_text(errors="replace")[-3000:])
            time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
    assert "Traceback" not in log.read_text(errors="replace"), log.read_text(errors="replace")[-3000:]


def wait_idle(page: Any) -> None:
    page.wait_for_timeout(300)
    page.wait_for_function("() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=30_000)
    page.wait_for_timeout(200)


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
    data_dir = tmp_path / "agent_data"
    shutil.copytree(ROOT / "agent_data" / "workspace", data_dir / "workspace")
    (data_dir / "runs").mkdir()
    (data_dir / "workspace" / "evil.txt").write_text(f"Evil notes\n{evil}\nend\n", encoding="utf-8")
    # A bad file whose name is hostile: the History warning lists it by name.
    (data_dir / "runs" / "<img src=x onerror=window.__pwned=1>.json").write_text("{not json")
    # A run saved by the engine with hostile text in every field a model or tool fills.
    config = Settings(data_dir=data_dir, retry_delays=(0.0,), search_web_failure_rate=0.0)
    crafted = run_to_end(
        f"Crafted goal {evil}",
        provider=ScriptedProvider(
            [
                {"text": f"model says {evil}", "tool_calls": [
                    {"name": short, "arguments": {short: evil}},
                    {"name": "word_count", "arguments": {"text": evil}},
                    {"name": "read_file", "arguments": {"path": "evil.txt"}},
                ]},
                ProviderError(f"the model failed: {evil}", provider="scripted", error_type=short),
            ],
            model=short,
        ),
        registry=build_default_registry(config), settings=config, scripted=True,
    )
    assert crafted["status"] == "error"

    with FakeLLMServer() as llm, streamlit_app(data_dir, {"OPENAI_COMPAT_BASE_URL": llm.url("/v1")}) as url:
        # The live run: the real openai SDK parses hostile model output from the fake server.
        llm.push(chat_body(text=f"live model text {evil}", calls=[
            ("call_1", "word_count", json.dumps({"text": evil})),
            ("call_2", short, '{"x": 1}'),
            ("call_3", "read_file", '{"path": "evil.txt"}'),
        ], model=short))
        llm.push(chat_body(text=f"live answer {evil}", model=short))
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
            context = browser.new_context(viewport={"width": 1400, "height": 1000})
            seen: list[str] = []
            context.on("request", lambda request: seen.append(request.url))
            page = context.new_page()
            page.set_default_timeout(30_000)
            page.goto(url + "/")
            page.get_by_text("Run an agent").first.wait_for(timeout=45_000)
            wait_idle(page)
            box = page.get_by_role("combobox", name="Provider")
            box.click()
            page.get_by_role("option", name=re.compile(r"^openai-chat — ")).click()
            wait_idle(page)
            goal = page.get_by_label("Goal", exact=True)
            goal.fill(f"Live goal {evil}")
            goal.press("Control+Enter")
            wait_idle(page)
            page.locator(".st-key-run_start button").click()
            page.get_by_text("Outcome:").first.wait_for()
            wait_idle(page)
            assert llm.remaining == 0, "the live run did not reach the model twice"
            open_everything(page)
            body = page.locator("body").inner_text()
            assert "live answer" in body and f"127.0.0.1:{port}/md.png" in body  # shown, as text
            assert_inert(page, port, seen, hits, "the Run page (live)")

            for where in (f"/history?run={crafted['run_id']}", "/history", "/tool-stats"):
                page.goto(url + where)
                page.get_by_role("heading").first.wait_for()
                wait_idle(page)
                assert not page.get_by_test_id("stException").count(), where
                open_everything(page)
                assert_inert(page, port, seen, hits, where)
            page.wait_for_timeout(1000)  # anything lazy (images, refreshes) has had time to fire
            assert_inert(page, port, seen, hits, "the last page")
            context.close()
            browser.close()
    assert hits == []
