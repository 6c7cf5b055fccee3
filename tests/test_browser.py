"""End-to-end: the real app in headless Chromium (Debian's, through Playwright's sync API).

Starts ``streamlit run app.py`` on a free port with a tmp ``AGENT_DATA_DIR``, runs the seed goal
on the offline provider, visits every page (screenshots at 1400 and 800 px wide go to the
git-ignored ``artifacts/screenshots/``), checks that hostile run text stays inert, and that
Stop really cancels a running run.
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
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

CHROMIUM = "/usr/bin/chromium"
SHOTS = ROOT / "artifacts" / "screenshots"
SEED_GOAL = "단가를 확인해서 제품 7개의 총 가격을 계산해 주세요."
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
WIDTHS = (1400, 800)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"{CHROMIUM} is missing (apt-get install chromium)"),
]
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Server:
    url: str
    data_dir: Path
    log: Path


@contextlib.contextmanager
def streamlit_server(data_dir: Path, extra_env: dict[str, str] | None = None) -> Iterator[Server]:
    """``streamlit run app.py`` headless on a free port; stopped (by its own pid) afterwards."""
    port = _free_port()
    env = {
        **os.environ,
        "AGENT_DATA_DIR": str(data_dir),
        "RETRY_DELAYS": "0,0",
        "SEARCH_WEB_FAILURE_RATE": "0",
        **(extra_env or {}),
    }
    log = data_dir / "streamlit.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "streamlit",
                "run",
                "app.py",
                "--server.headless",
                "true",
                "--server.port",
                str(port),
                "--browser.gatherUsageStats",
                "false",
                "--server.fileWatcherType",
                "none",
            ],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
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
        yield Server(url, data_dir, log)
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


def _data_dir(root: Path) -> Path:
    shutil.copytree(ROOT / "agent_data" / "workspace", root / "workspace")
    (root / "runs").mkdir()
    return root


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with streamlit_server(_data_dir(tmp_path_factory.mktemp("agent_data"))) as srv:
        yield srv


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with sync_api.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: object) -> Iterator[object]:
    context = browser.new_context(viewport={"width": WIDTHS[0], "height": 1000})  # type: ignore[attr-defined]
    pg = context.new_page()
    pg.set_default_timeout(30_000)
    yield pg
    context.close()


def wait_idle(page: object) -> None:
    """Wait until the script run is over (Streamlit shows a 'running' status widget meanwhile)."""
    page.wait_for_timeout(300)  # type: ignore[attr-defined]
    page.wait_for_function(  # type: ignore[attr-defined]
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=30_000
    )
    page.wait_for_timeout(200)  # type: ignore[attr-defined]


_CONTENT_HEIGHT = """() => Math.max(1000, ...Array.from(document.querySelectorAll(
    '[data-testid="stMain"], [data-testid="stAppViewContainer"], [data-testid="stMainBlockContainer"]'
)).map(e => e.scrollHeight))"""


def shoot(page: object, name: str) -> None:
    """Whole-page screenshots at each width (the viewport grows to the page's scroll height,
    since Streamlit scrolls inside its main container, not the document)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 1000})  # type: ignore[attr-defined]
        page.wait_for_timeout(400)  # type: ignore[attr-defined]
        height = min(int(page.evaluate(_CONTENT_HEIGHT)) + 40, 12_000)  # type: ignore[attr-defined]
        page.set_viewport_size({"width": width, "height": height})  # type: ignore[attr-defined]
        page.wait_for_timeout(1000)  # charts redraw after a resize
        page.screenshot(path=str(SHOTS / f"{name}-{width}.png"))  # type: ignore[attr-defined]
    page.set_viewport_size({"width": WIDTHS[0], "height": 1000})  # type: ignore[attr-defined]


def choose_offline(page: object) -> None:
    box = page.get_by_role("combobox", name="Provider")  # type: ignore[attr-defined]
    box.click()
    page.get_by_role("option", name=re.compile(r"^offline — ")).click()  # type: ignore[attr-defined]
    wait_idle(page)
    assert box.input_value().startswith("offline — offline demo model")


def open_run_page(page: object, url: str) -> None:
    """Load the Run page; a cold server's first script run can be slow, so allow a reload."""
    for attempt in range(2):
        page.goto(url + "/")  # type: ignore[attr-defined]
        try:
            page.get_by_text("Run an agent").first.wait_for(timeout=45_000)  # type: ignore[attr-defined]
            break
        except sync_api.TimeoutError:
            if attempt:
                raise
    wait_idle(page)


def run_goal(page: object, server: Server, goal: str) -> None:
    open_run_page(page, server.url)
    choose_offline(page)
    area = page.get_by_label("Goal", exact=True)  # type: ignore[attr-defined]
    area.fill(goal)
    area.press("Control+Enter")
    wait_idle(page)
    page.locator(".st-key-run_start button").click()  # type: ignore[attr-defined]
    page.get_by_text("Outcome:").first.wait_for()  # type: ignore[attr-defined]
    wait_idle(page)


def click_tabs(page: object, names: list[str], shot: str | None = None) -> None:
    for name in names:
        page.get_by_role("tab", name=name).click()  # type: ignore[attr-defined]
        page.wait_for_timeout(300)  # type: ignore[attr-defined]
        if shot:
            shoot(page, f"{shot}-{name.lower().replace(' ', '-')}")


def open_expanders(page: object) -> None:
    """Open every step (and other expander) of the Steps tab, so all their content is drawn."""
    page.get_by_role("tab", name="Steps").click()  # type: ignore[attr-defined]
    page.wait_for_timeout(300)  # type: ignore[attr-defined]
    for summary in page.locator("[data-testid='stExpander'] summary").all():  # type: ignore[attr-defined]
        if summary.is_visible():
            summary.click()
    page.wait_for_timeout(300)  # type: ignore[attr-defined]


DETAIL_TABS = ["Steps", "Context blocks", "Tool calls", "Transcript", "Downloads"]


def test_seed_goal_and_every_page(server: Server, page: object) -> None:
    run_goal(page, server, SEED_GOAL)
    body = page.locator("body").inner_text()  # type: ignore[attr-defined]
    assert "168" in body and "completed" in body
    assert page.get_by_test_id("stExpander").count() >= 3  # type: ignore[attr-defined]
    shoot(page, "01-run-result")

    page.get_by_role("link", name=re.compile("Open this run in History")).click()  # type: ignore[attr-defined]
    page.get_by_text("Run detail").first.wait_for()  # type: ignore[attr-defined]
    wait_idle(page)
    assert re.search(r"/history\?run=[0-9a-f-]{36}$", page.url)  # type: ignore[attr-defined]
    shoot(page, "02-history-detail")
    click_tabs(page, DETAIL_TABS[1:4], shot="03-history")

    # The shareable link works from a fresh page load.
    run_id = page.url.rsplit("=", 1)[1]  # type: ignore[attr-defined]
    page.goto(f"{server.url}/history?run={run_id}")  # type: ignore[attr-defined]
    page.get_by_text("Run detail").first.wait_for()  # type: ignore[attr-defined]
    wait_idle(page)

    page.goto(server.url + "/")  # type: ignore[attr-defined]
    page.get_by_role("tab", name="Demo scenarios (scripted)").click()  # type: ignore[attr-defined]
    page.locator(".st-key-run_demo_start button").click()  # type: ignore[attr-defined]
    page.get_by_text("Outcome:").first.wait_for()  # type: ignore[attr-defined]
    wait_idle(page)
    body = page.locator("body").inner_text()  # type: ignore[attr-defined]
    assert "Scripted demo" in body and "268" in body
    shoot(page, "04-run-demo-tour")
    page.get_by_role("link", name=re.compile("Open this run in History")).click()  # type: ignore[attr-defined]
    page.get_by_text("Run detail").first.wait_for()  # type: ignore[attr-defined]
    wait_idle(page)
    click_tabs(page, ["Context blocks"], shot="04-demo-history")

    for path, title, name in (
        ("/history", "History", "05-history"),
        ("/tool-stats", "Tool stats", "06-tool-stats"),
        ("/tools", "Tools", "07-tools"),
    ):
        page.goto(server.url + path)  # type: ignore[attr-defined]
        page.get_by_role("heading", name=re.compile(title)).first.wait_for()  # type: ignore[attr-defined]
        wait_idle(page)
        assert not page.get_by_test_id("stException").count()  # type: ignore[attr-defined]
        shoot(page, name)
        if path == "/history":  # clicking a row opens the run and puts it in the URL
            box = page.get_by_test_id("stDataFrame").first.bounding_box()  # type: ignore[attr-defined]
            page.mouse.click(box["x"] + 16, box["y"] + 35 + 17)  # type: ignore[attr-defined]
            page.get_by_text("Run detail").first.wait_for()  # type: ignore[attr-defined]
            wait_idle(page)
            assert re.search(r"/history\?run=[0-9a-f-]{36}$", page.url)  # type: ignore[attr-defined]
    page.get_by_test_id("stExpander").first.click()  # type: ignore[attr-defined]
    page.wait_for_timeout(300)  # type: ignore[attr-defined]
    shoot(page, "08-tools-open")
    log = server.log.read_text(errors="replace")
    assert "Traceback" not in log, log[-3000:]


class _Counter(BaseHTTPRequestHandler):
    hits: list[str] = []

    def _any(self) -> None:
        type(self).hits.append(self.path)
        body = b"x"
        self.send_response(200)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = do_HEAD = _any

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def listener() -> Iterator[tuple[int, list[str]]]:
    """A local HTTP server that counts every request it gets."""
    _Counter.hits = []
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Counter)
    srv.daemon_threads = True
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    try:
        yield srv.server_address[1], _Counter.hits
    finally:
        srv.shutdown()
        srv.server_close()


def test_hostile_text_stays_inert(server: Server, page: object, listener: tuple[int, list[str]]) -> None:
    from agent_core.loop import run_to_end
    from agent_core.providers.scripted import ScriptedProvider
    from agent_core.settings import Settings
    from agent_core.tools import build_default_registry

    port, hits = listener
    hostile = (
        f'<img src=http://127.0.0.1:{port}/img.png> <script>fetch("http://127.0.0.1:{port}/script")</script> '
        f"![x](http://127.0.0.1:{port}/md.png) [link](http://127.0.0.1:{port}/link) "
        f"<iframe src=http://127.0.0.1:{port}/frame></iframe>"
    )
    (server.data_dir / "workspace" / "hostile.txt").write_text(f"Hostile notes\n{hostile}\nend\n", encoding="utf-8")
    # A record with hostile text everywhere a model or tool can put it (tool names included).
    config = Settings(data_dir=server.data_dir, retry_delays=(0.0,), search_web_failure_rate=0.0)
    crafted = run_to_end(
        f"Crafted {hostile}",
        provider=ScriptedProvider(
            [
                {
                    "text": f"note {hostile}",
                    "tool_calls": [
                        {"name": f"![t](http://127.0.0.1:{port}/toolname.png)", "arguments": {"q": hostile}},
                        {"name": "word_count", "arguments": {"text": hostile}},
                    ],
                },
                {"tool_calls": [{"name": "read_file", "arguments": {"path": "hostile.txt"}}]},
                {"text": f"answer {hostile}"},
            ]
        ),
        registry=build_default_registry(config),
        settings=config,
        scripted=True,
    )

    run_goal(page, server, f"Read hostile.txt and summarize it. {hostile}")
    body = page.locator("body").inner_text()  # type: ignore[attr-defined]
    assert f"127.0.0.1:{port}/md.png" in body  # the text is shown, as text
    assert page.locator("img[src*='127.0.0.1'], iframe, script[src*='127.0.0.1']").count() == 0  # type: ignore[attr-defined]
    assert page.locator(f"a[href*=':{port}']").count() == 0  # type: ignore[attr-defined]
    shoot(page, "09-hostile-run")

    page.get_by_role("link", name=re.compile("Open this run in History")).click()  # type: ignore[attr-defined]
    page.get_by_text("Run detail").first.wait_for()  # type: ignore[attr-defined]
    wait_idle(page)
    click_tabs(page, DETAIL_TABS)
    open_expanders(page)

    page.goto(f"{server.url}/history?run={crafted['run_id']}")  # type: ignore[attr-defined]
    page.get_by_text("Run detail").first.wait_for()  # type: ignore[attr-defined]
    wait_idle(page)
    click_tabs(page, DETAIL_TABS)
    open_expanders(page)
    # Not even a clickable link to the listener (bare URLs in labels are not auto-linked).
    assert page.locator(f"a[href*=':{port}']").count() == 0  # type: ignore[attr-defined]
    shoot(page, "10-hostile-history")
    for path in ("/history", "/tool-stats"):
        page.goto(server.url + path)  # type: ignore[attr-defined]
        wait_idle(page)
    page.wait_for_timeout(1000)  # type: ignore[attr-defined]
    assert page.locator("img[src*='127.0.0.1'], iframe").count() == 0  # type: ignore[attr-defined]
    assert hits == [], hits


SLOW_BACKOFF = """
import agent_core.dispatcher as _d
_d.backoff_delay = lambda attempt, delays, **kw: delays[min(attempt, len(delays) - 1)]
"""


def test_stop_cancels_a_running_run(tmp_path: Path, browser: object) -> None:
    """search_web fails every attempt with fixed 1 s waits, so the run is still going when Stop
    is clicked; the record must end up ``cancelled`` and the page must say so."""
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(SLOW_BACKOFF, encoding="utf-8")
    env = {
        "PYTHONPATH": os.pathsep.join([str(hook), str(ROOT), os.environ.get("PYTHONPATH", "")]),
        "SEARCH_WEB_FAILURE_RATE": "1",
        "RETRY_DELAYS": "1,1,1",
    }
    with streamlit_server(_data_dir(tmp_path / "agent_data"), env) as srv:
        context = browser.new_context(viewport={"width": 1400, "height": 1000})  # type: ignore[attr-defined]
        page = context.new_page()
        page.set_default_timeout(30_000)
        open_run_page(page, srv.url)
        choose_offline(page)
        area = page.get_by_label("Goal", exact=True)
        area.fill("Search the web for streamlit")
        area.press("Control+Enter")
        wait_idle(page)
        page.locator(".st-key-run_start button").click()
        page.get_by_text("Running search_web").first.wait_for()
        page.locator(".st-key-run_stop button").first.click()
        page.get_by_text("Stopped.").first.wait_for()
        wait_idle(page)
        body = page.locator("body").inner_text()
        assert "cancelled" in body
        shoot(page, "11-run-stopped")
        context.close()
        (path,) = list((srv.data_dir / "runs").glob("*.json"))
        record = json.loads(path.read_text(encoding="utf-8"))
        assert record["status"] == "cancelled"
        assert record["answer"] is None
        # Stop also cut the retry waits short (three 1 s waits were planned).
        assert all(call["duration_ms"] < 2500 for call in record["tool_calls"])
