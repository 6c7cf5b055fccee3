"""End-to-end: the real app in headless Chromium (Debian's, through Playwright's sync API).

Starts ``streamlit run app.py`` on a free port with a tmp ``AGENT_DATA_DIR``, runs the seed goal
on the offline provider, visits every page (screenshots at 1400 and 800 px wide go to the
git-ignored ``artifacts/screenshots/``), checks that hostile run text stays inert, and that
Stop really cancels a running run.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from browser_kit import (
    ROOT,
    AppServer,
    assert_clean_log,
    browser_page,
    choose_provider,
    chromium,
    counting_listener,
    fresh_data_dir,
    needs_chromium,
    open_first_row,
    start_run,
    streamlit_app,
    sync_api,
    wait_idle,
)

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

SHOTS = ROOT / "artifacts" / "screenshots"
SEED_GOAL = "단가를 확인해서 제품 7개의 총 가격을 계산해 주세요."
WIDTHS = (1400, 800)
APP_ENV = {"RETRY_DELAYS": "0,0", "SEARCH_WEB_FAILURE_RATE": "0"}
"""Instant retries and a search_web that never fails, unless a test says otherwise."""

pytestmark = [pytest.mark.browser, needs_chromium]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppServer]:
    with streamlit_app(fresh_data_dir(tmp_path_factory.mktemp("agent_data")), APP_ENV) as srv:
        yield srv


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as launched:
        yield launched


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    with browser_page(browser, width=WIDTHS[0]) as pg:
        yield pg


_CONTENT_HEIGHT = """() => Math.max(1000, ...Array.from(document.querySelectorAll(
    '[data-testid="stMain"], [data-testid="stAppViewContainer"], [data-testid="stMainBlockContainer"]'
)).map(e => e.scrollHeight))"""


def shoot(page: Page, name: str) -> None:
    """Whole-page screenshots at each width (the viewport grows to the page's scroll height,
    since Streamlit scrolls inside its main container, not the document)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 1000})
        page.wait_for_timeout(400)
        height = min(int(page.evaluate(_CONTENT_HEIGHT)) + 40, 12_000)
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(1000)  # charts redraw after a resize
        page.screenshot(path=str(SHOTS / f"{name}-{width}.png"))
    page.set_viewport_size({"width": WIDTHS[0], "height": 1000})


def choose_offline(page: Page) -> None:
    box = choose_provider(page, "offline")
    assert box.input_value().startswith("Instant demo — rule-based, no AI")


def open_run_page(page: Page, url: str) -> None:
    """Load the Run page; a cold server's first script run can be slow, so allow a reload."""
    for attempt in range(2):
        page.goto(url + "/")
        try:
            page.get_by_text("Run an agent").first.wait_for(timeout=45_000)
            break
        except sync_api.TimeoutError:
            if attempt:
                raise
    wait_idle(page)


def run_goal(page: Page, server: AppServer, goal: str) -> None:
    open_run_page(page, server.url)
    choose_offline(page)
    start_run(page, goal)
    page.get_by_text("Outcome:").first.wait_for()
    wait_idle(page)


def click_tabs(page: Page, names: list[str], shot: str | None = None) -> None:
    for name in names:
        page.get_by_role("tab", name=name).click()
        page.wait_for_timeout(300)
        if shot:
            shoot(page, f"{shot}-{name.lower().replace(' ', '-')}")


def open_expanders(page: Page) -> None:
    """Open every step (and other expander) of the Steps tab, so all their content is drawn."""
    page.get_by_role("tab", name="Steps").click()
    page.wait_for_timeout(300)
    for summary in page.locator("[data-testid='stExpander'] summary").all():
        if summary.is_visible():
            summary.click()
    page.wait_for_timeout(300)


DETAIL_TABS = ["Steps", "Context blocks", "Tool calls", "Transcript", "Downloads"]


def test_seed_goal_and_every_page(server: AppServer, page: Page) -> None:
    run_goal(page, server, SEED_GOAL)
    body = page.locator("body").inner_text()
    assert "168" in body and "Answered" in body, body  # outcome in words; the saved status stays "completed"
    assert page.get_by_test_id("stExpander").count() >= 3
    shoot(page, "01-run-result")

    page.get_by_role("link", name=re.compile("Open this run in History")).click()
    page.get_by_text("Run detail").first.wait_for()
    wait_idle(page)
    assert re.search(r"/history\?run=[0-9a-f-]{36}$", page.url)
    shoot(page, "02-history-detail")
    click_tabs(page, DETAIL_TABS[1:4], shot="03-history")

    # The shareable link works from a fresh page load.
    run_id = page.url.rsplit("=", 1)[1]
    page.goto(f"{server.url}/history?run={run_id}")
    page.get_by_text("Run detail").first.wait_for()
    wait_idle(page)

    page.goto(server.url + "/")
    page.get_by_role("tab", name="Demo scenarios (scripted)").click()
    page.locator(".st-key-run_demo_start button").click()
    page.get_by_text("Outcome:").first.wait_for()
    wait_idle(page)
    body = page.locator("body").inner_text()
    assert "Scripted demo" in body and "268" in body
    shoot(page, "04-run-demo-tour")
    page.get_by_role("link", name=re.compile("Open this run in History")).click()
    page.get_by_text("Run detail").first.wait_for()
    wait_idle(page)
    click_tabs(page, ["Context blocks"], shot="04-demo-history")

    for path, title, name in (
        ("/history", "History", "05-history"),
        ("/tool_stats", "Tool stats", "06-tool-stats"),
        ("/workspace", "Your documents", "09-workspace"),
        ("/tools", "Tools", "07-tools"),
    ):
        page.goto(server.url + path)
        page.get_by_role("heading", name=re.compile(title)).first.wait_for()
        wait_idle(page)
        assert not page.get_by_test_id("stException").count()
        shoot(page, name)
        if path == "/history":  # clicking a row opens the run and puts it in the URL
            open_first_row(page, page.get_by_test_id("stDataFrame").first)
            wait_idle(page)
            assert re.search(r"/history\?run=[0-9a-f-]{36}$", page.url)
    page.get_by_test_id("stExpander").first.click()
    page.wait_for_timeout(300)
    shoot(page, "08-tools-open")
    assert_clean_log(server.log)


@pytest.fixture
def listener() -> Iterator[tuple[int, list[str]]]:
    """A local HTTP server that counts every request it gets."""
    with counting_listener() as found:
        yield found


def test_hostile_text_stays_inert(server: AppServer, page: Page, listener: tuple[int, list[str]]) -> None:
    from agent_core.providers.scripted import ScriptedProvider
    from agent_core.run.loop import run_to_end
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
    body = page.locator("body").inner_text()
    assert f"127.0.0.1:{port}/md.png" in body  # the text is shown, as text
    assert page.locator("img[src*='127.0.0.1'], iframe, script[src*='127.0.0.1']").count() == 0
    assert page.locator(f"a[href*=':{port}']").count() == 0
    shoot(page, "09-hostile-run")

    page.get_by_role("link", name=re.compile("Open this run in History")).click()
    page.get_by_text("Run detail").first.wait_for()
    wait_idle(page)
    click_tabs(page, DETAIL_TABS)
    open_expanders(page)

    page.goto(f"{server.url}/history?run={crafted['run_id']}")
    page.get_by_text("Run detail").first.wait_for()
    wait_idle(page)
    click_tabs(page, DETAIL_TABS)
    open_expanders(page)
    # Not even a clickable link to the listener (bare URLs in labels are not auto-linked).
    assert page.locator(f"a[href*=':{port}']").count() == 0
    shoot(page, "10-hostile-history")
    for path in ("/history", "/tool_stats"):
        page.goto(server.url + path)
        wait_idle(page)
    page.wait_for_timeout(1000)
    assert page.locator("img[src*='127.0.0.1'], iframe").count() == 0
    assert hits == [], hits


SLOW_BACKOFF = """
import agent_core.run.retry as _r
_r.backoff_delay = lambda attempt, delays, **kw: delays[min(attempt, len(delays) - 1)]
"""
"""Fixed retry waits (no jitter) in the app's process, so a run with failing calls lasts long enough
to be stopped or left. The one retry policy is agent_core.run.retry's; patching a module that no
longer uses it made the waits random and these tests flaky."""


def test_stop_cancels_a_running_run(tmp_path: Path, browser: Browser) -> None:
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
    with streamlit_app(fresh_data_dir(tmp_path / "agent_data"), {**APP_ENV, **env}) as srv:
        with browser_page(browser) as page:
            open_run_page(page, srv.url)
            choose_offline(page)
            start_run(page, "Search the web for streamlit")
            # The page scrolls the live run into view under the pointer left on Run: a hovered step
            # shows its fold arrow instead of its hourglass, so the pointer moves off the steps.
            page.mouse.move(5, 5)
            page.get_by_text("Running search_web").first.wait_for()
            # The running step shows a still hourglass: no animation takes CPU from a local model.
            # (The page's style element may mount a moment after the step does: CI once checked
            # in between and read no hourglass yet.)
            # Checked in one go: the step may end (its fallback answers) before a second look.
            page.wait_for_function(
                """() => { const e = document.querySelector('[data-testid="stExpanderIconSpinner"]');
                           return e !== null && getComputedStyle(e, '::before').content === '"⏳"'
                                  && e.getAnimations().length === 0; }""",
                timeout=10_000,
            )
            page.locator(".st-key-run_stop button").first.click()
            page.get_by_text("Stopped.").first.wait_for()
            wait_idle(page)
            body = page.locator("body").inner_text()
            assert "cancelled" in body
            shoot(page, "11-run-stopped")
        (path,) = list((srv.data_dir / "runs").glob("*.json"))
        record = json.loads(path.read_text(encoding="utf-8"))
        assert record["status"] == "cancelled"
        assert record["answer"] is None
        # Stop also cut the retry waits short (three 1 s waits were planned).
        assert all(call["duration_ms"] < 2500 for call in record["tool_calls"])


@pytest.mark.parametrize("target", ["history?run=", "tool_stats", "tools", "run", "workspace"])
def test_a_shared_link_works_on_a_freshly_started_server(tmp_path: Path, browser: Browser, target: str) -> None:
    """The first page a new server serves is a link to a page: it must open inside the app
    (navigation, sidebar, wide layout), not as a lone script of the ``pages/`` folder, and
    without a "page not found" box."""
    from agent_core.providers import make_provider
    from agent_core.run.loop import run_to_end
    from agent_core.settings import Settings
    from agent_core.tools import build_default_registry

    data_dir = fresh_data_dir(tmp_path / "agent_data")
    config = Settings.from_env(dotenv=False).replace(data_dir=data_dir)
    record = run_to_end(
        "What is (24*7)+100?",
        provider=make_provider("offline", settings=config),
        registry=build_default_registry(config),
        settings=config,
    )
    path = "/" + target + (record["run_id"] if target.endswith("=") else "")
    expected = {
        "history?run=": "Run detail",
        "tool_stats": "Per tool",
        "tools": "Try a tool",
        "run": "Run an agent",
        "workspace": "Preview, download or remove",
    }[target]
    with streamlit_app(data_dir, APP_ENV) as srv, browser_page(browser) as page:
        page.goto(srv.url + path)
        page.get_by_text(expected).first.wait_for()
        wait_idle(page)
        nav = page.locator('[data-testid="stSidebarNav"]').inner_text()
        lines = {line.strip() for line in nav.splitlines()}
        # The app's four pages, not the files of pages/ ("app", "run view", "ui", "tool stats";
        # icons show as words like "history").
        assert {"Run", "History", "Tool stats", "Tools"} <= lines
        assert not {"app", "run view", "tool stats", "ui"} & lines
        assert page.get_by_text("Agent Workbench — run tool-calling agents").count() == 1
        assert page.get_by_text("Page not found").count() == 0
        # /run is the default page, whose own URL is /: it opens there, with no "Page not found".
        assert page.url.endswith(path) or (target == "run" and page.url.rstrip("/") == srv.url)
        if target.startswith("history"):
            assert "268" in page.locator('[data-testid="stMain"]').inner_text()
            shoot(page, "12-shared-link-fresh-server")
        assert_clean_log(srv.log)


def test_first_hour_leave_and_come_back_toolbar_stop_and_step_limit(tmp_path: Path, browser: Browser) -> None:
    """One slow server for three first-hour checks: while a run goes, Streamlit's toolbar Stop is
    hidden and ours is on screen; leaving for History does not cancel the run (the sidebar says
    "1 run in progress") and coming back shows it finished, with the form as it was left; an
    invalid step limit refuses to start and says why, instead of silently using the previous value."""
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(SLOW_BACKOFF, encoding="utf-8")
    env = {
        "PYTHONPATH": os.pathsep.join([str(hook), str(ROOT), os.environ.get("PYTHONPATH", "")]),
        "SEARCH_WEB_FAILURE_RATE": "1",
        "RETRY_DELAYS": "1,1,1",
    }
    with streamlit_app(fresh_data_dir(tmp_path / "agent_data"), {**APP_ENV, **env}) as srv:
        with browser_page(browser) as page:
            open_run_page(page, srv.url)
            choose_offline(page)
            start_run(page, "Search the web for streamlit")
            # The page scrolls the live run into view under the pointer left on Run: a hovered step
            # shows its fold arrow instead of its hourglass, so the pointer moves off the steps.
            page.mouse.move(5, 5)
            page.get_by_text("Running search_web").first.wait_for()
            assert page.locator(".st-key-run_stop button").first.is_visible()
            # Streamlit's status widget (its Stop, its running figure) is hidden while ours are shown.
            status = page.locator('[data-testid="stStatusWidget"]').first
            status.wait_for(state="attached")  # Streamlit adds it a moment after the script starts
            assert not status.is_visible()
            page.get_by_role("link", name="History").first.click()
            page.get_by_text("1 run in progress").first.wait_for()
            (path,) = list((srv.data_dir / "runs").glob("*.json"))
            deadline = time.monotonic() + 30
            while json.loads(path.read_text(encoding="utf-8"))["status"] == "running":
                assert time.monotonic() < deadline, "the run did not go on in the background"
                time.sleep(0.3)
            assert json.loads(path.read_text(encoding="utf-8"))["status"] != "cancelled"
            page.get_by_role("link", name="Run").first.click()
            page.get_by_text("Outcome:").first.wait_for()
            wait_idle(page)
            assert page.get_by_text("search_web").count() > 0
            # The form as it was left: the goal and the provider (they were reset to empty and Local).
            assert page.get_by_label("Goal", exact=True).input_value() == "Search the web for streamlit"
            assert page.get_by_role("combobox", name="Provider").input_value().startswith("Instant demo")

            steps = page.get_by_label("Step limit", exact=True)
            steps.fill("0")
            steps.press("Enter")
            page.get_by_text("The step limit must be a whole number from 1 to 50").first.wait_for()
            page.locator(".st-key-run_start button").click()
            page.get_by_text("Cannot start").first.wait_for()
            wait_idle(page)
            assert len(list((srv.data_dir / "runs").glob("*.json"))) == 1
        assert_clean_log(srv.log)
