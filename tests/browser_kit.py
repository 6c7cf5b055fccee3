"""Shared setup of the browser tests: the real app under ``streamlit run`` and Debian's Chromium.

Used by tests/test_browser.py and tests/test_reliability_browser.py. Importing this module skips
the importing test module when Playwright is not installed; mark tests with ``needs_chromium`` so
they skip when Debian's chromium is missing.

    with streamlit_app(fresh_data_dir(tmp_path / "agent_data")) as app, chromium() as browser:
        with browser_page(browser) as page:
            page.goto(app.url + "/")
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Locator, Page, Request

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)
LOG_TAIL = 3000
"""How many characters of the server log a failure message shows."""

needs_chromium = pytest.mark.skipif(
    not Path(CHROMIUM).exists(), reason=f"{CHROMIUM} is missing (apt-get install chromium)"
)
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def fresh_data_dir(root: Path) -> Path:
    """``root`` as an app data folder: a copy of the sample workspace and an empty ``runs``."""
    shutil.copytree(ROOT / "agent_data" / "workspace", root / "workspace")
    (root / "runs").mkdir()
    return root


@dataclass(frozen=True)
class AppServer:
    """A running ``streamlit run serve.py`` (the app as the README starts it)."""

    url: str
    """``http://127.0.0.1:<port>``, without a trailing slash."""
    data_dir: Path
    """The ``AGENT_DATA_DIR`` it runs on."""
    log: Path
    """Its stdout and stderr."""


def log_tail(log: Path) -> str:
    """The end of a server log, for a failure message."""
    return log.read_text(errors="replace")[-LOG_TAIL:]


def assert_clean_log(log: Path) -> None:
    """The server logged no exception."""
    text = log.read_text(errors="replace")
    assert "Traceback" not in text, text[-LOG_TAIL:]


@contextlib.contextmanager
def streamlit_app(data_dir: Path, env: dict[str, str] | None = None, *, log: Path | None = None) -> Iterator[AppServer]:
    """``streamlit run serve.py`` headless on a free port with ``AGENT_DATA_DIR=data_dir`` plus ``env``,
    until it answers its health check (60 s at most); stopped by its own pid afterwards.

    ``log`` (default ``data_dir/streamlit.log``) gets its output; a server that does not start
    raises with the end of it.
    """
    port = free_port()
    log = log or data_dir / "streamlit.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "streamlit",
                "run",
                "serve.py",
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
            env={**os.environ, "AGENT_DATA_DIR": str(data_dir), **(env or {})},
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
                raise RuntimeError("streamlit did not start:\n" + log_tail(log))
            time.sleep(0.2)
        yield AppServer(url, data_dir, log)
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


@contextlib.contextmanager
def chromium(*, args: Sequence[str] = CHROMIUM_ARGS) -> Iterator[Browser]:
    """Debian's chromium, headless, through Playwright's sync API (no downloaded browser)."""
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=list(args))
        try:
            yield browser
        finally:
            browser.close()


@contextlib.contextmanager
def browser_page(
    browser: Browser,
    *,
    width: int = 1400,
    height: int = 1000,
    on_request: Callable[[Request], None] | None = None,
) -> Iterator[Page]:
    """A page in a fresh browser context (``width`` x ``height``, 30 s default timeout), closed afterwards.

    ``on_request`` sees every request the context makes, from its first page load on.
    """
    context = browser.new_context(viewport={"width": width, "height": height})
    if on_request is not None:
        context.on("request", on_request)
    page = context.new_page()
    page.set_default_timeout(30_000)
    try:
        yield page
    finally:
        context.close()


def wait_idle(page: Page) -> None:
    """Wait until the script run is over (Streamlit shows a 'running' status widget meanwhile)."""
    page.wait_for_timeout(300)
    page.wait_for_function("() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=30_000)
    page.wait_for_timeout(200)


def open_first_row(page: Page, grid: Locator, opened: str = "Run detail") -> None:
    """Click the first row's selection box of a data grid and wait for ``opened`` to show.

    The grid is drawn on a canvas that lays itself out again after a resize or a rerun, so a
    click can land before the rows are there; the click is tried again (at most three times)
    rather than failing the test on a layout race.
    """
    for attempt in range(3):
        grid.wait_for()
        wait_idle(page)
        box = grid.bounding_box()
        assert box is not None
        page.mouse.click(box["x"] + 16, box["y"] + 35 + 17)
        wait_idle(page)  # a click that landed has started a rerun: let it finish before judging
        try:
            page.get_by_text(opened).first.wait_for(timeout=10_000 if attempt < 2 else 30_000)
            return
        except sync_api.TimeoutError:
            if attempt == 2:
                raise


def choose_provider(page: Page, name: str) -> Locator:
    """Pick provider ``name`` (an id such as ``offline``) in the Run page's Provider box, where it
    shows under its plain name ("Instant demo — …"); returns the box."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from ui.provider import PLAIN

    shown = PLAIN.get(name, (name,))[0]
    box = page.get_by_role("combobox", name="Provider")
    box.click()
    page.get_by_role("option", name=re.compile(rf"^{re.escape(shown)} — ")).click()
    wait_idle(page)
    return box


def start_run(page: Page, goal: str) -> None:
    """Type ``goal`` on the Run page and click Run (returns at once; the run goes on)."""
    area = page.get_by_label("Goal", exact=True)
    area.fill(goal)
    area.press("Control+Enter")
    wait_idle(page)
    page.locator(".st-key-run_start button").click()


@contextlib.contextmanager
def counting_listener() -> Iterator[tuple[int, list[str]]]:
    """A local HTTP server that answers 204 to anything and records ``"METHOD path"`` of each request.

    Yields its port and the list of requests (the hostile-text tests expect it to stay empty).
    """
    hits: list[str] = []

    class Count(BaseHTTPRequestHandler):
        def _any(self) -> None:
            hits.append(f"{self.command} {self.path}")
            self.send_response(204)
            self.end_headers()

        do_GET = do_POST = do_HEAD = do_OPTIONS = _any

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Count)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server.server_address[1], hits
    finally:
        server.shutdown()
        server.server_close()
