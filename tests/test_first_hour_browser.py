"""The first hour in Chromium: every page's URL opens cleanly as the first request of
a new session on a server that has already served others, and History at 800 px shows only the
essentials, keeps the Compare label whole, shows the whole date range, and opens a run from a row of its narrow table."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from browser_kit import (
    ROOT,
    assert_clean_log,
    browser_page,
    chromium,
    fresh_data_dir,
    needs_chromium,
    open_first_row,
    streamlit_app,
    wait_idle,
)

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

pytestmark = [pytest.mark.browser, needs_chromium]

PAGES = {
    "/history?run=": "Run detail",
    "/": "Run an agent",
    "/run": "Run an agent",
    "/history": "Search goals",
    "/compare": "Compare runs",
    "/tool_stats": "Per tool",
    "/evals": "Run an eval",
    "/tools": "Try a tool",
}
"""Every page's address and a text that shows it opened (``/`` and ``/run`` are both Run)."""

_OVERFLOWING = """b => Array.from(b.querySelectorAll('*')).concat([b])
    .filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.tagName + ':' + e.textContent)"""
_CUT = """b => Array.from(b.querySelectorAll('*')).concat([b])
    .filter(e => e.clientWidth > 1 && e.scrollWidth > e.clientWidth + 1).map(e => e.scrollWidth + '>' + e.clientWidth)"""
"""Visible elements whose content is wider than they are (the date field's hidden inputs are 1 px)."""


def test_every_page_opens_in_a_new_session_and_history_fits_800_px(tmp_path: Path) -> None:
    from agent_core.providers import make_provider
    from agent_core.run.loop import run_to_end
    from agent_core.settings import Settings
    from agent_core.tools import build_default_registry

    data_dir = fresh_data_dir(tmp_path / "agent_data")
    config = Settings.from_env(dotenv=False).replace(data_dir=data_dir)
    records = [
        run_to_end(
            goal,
            provider=make_provider("offline", settings=config),
            registry=build_default_registry(config),
            settings=config,
        )
        for goal in ("What is (24*7)+100?", "What's the weather in Seoul in fahrenheit?")
    ]
    with streamlit_app(data_dir, {"RETRY_DELAYS": "0,0"}) as srv, chromium() as browser:
        for path, expected in PAGES.items():  # each in a fresh browser context: a new session
            url = srv.url + path + (records[0]["run_id"] if path.endswith("=") else "")
            with browser_page(browser) as page:
                page.goto(url)
                page.get_by_text(expected).first.wait_for(timeout=45_000)
                wait_idle(page)
                assert page.get_by_text("Page not found").count() == 0, path
                assert page.get_by_text("Agent Workbench — run tool-calling agents").count() == 1, path

        with browser_page(browser, width=800) as page:
            page.goto(srv.url + "/history")
            page.get_by_text("runs shown").first.wait_for(timeout=45_000)
            wait_idle(page)
            # Streamlit draws st.html (our CSS) and the grids lazily, after the script has ended:
            # for up to ~2 s both tables' placeholders show, so wait for the CSS to apply.
            shown = """() => ['history_wide', 'history_narrow'].map(k => {
                    const e = document.querySelector('.st-key-' + k);
                    return e && getComputedStyle(e).display !== 'none' && e.getBoundingClientRect().height > 0;
                }).join()"""
            try:  # only time, status and goal at 800 px
                page.wait_for_function(f"() => ({shown})() === 'false,true'", timeout=20_000)
            except Exception:
                raise AssertionError(f"tables shown at 800 px (wide, narrow): {page.evaluate(shown)}") from None
            button = page.locator(".st-key-history_compare_go button")
            assert button.inner_text().strip() == "Compare"
            assert button.evaluate(_OVERFLOWING) == []  # the label is not cut ("Comp…")
            dates = page.locator(".st-key-history_filters [data-testid='stDateInput']")
            assert dates.evaluate(_CUT) == []  # the whole range shows, not "2026/12/01 – 2026/"
            # A row of the narrow table opens its run (the newest is the first row).
            narrow = page.locator(".st-key-history_narrow [data-testid='stDataFrame']")
            narrow.scroll_into_view_if_needed()  # below the filters at 800 px (cost, retries, label)
            open_first_row(page, narrow)
            assert page.url.endswith("?run=" + records[1]["run_id"])
            page.set_viewport_size({"width": 1400, "height": 1000})  # wider again: every column
            page.get_by_role("button", name="← all runs").click()
            page.get_by_text("runs shown").first.wait_for()
            wait_idle(page)
            page.wait_for_function(f"() => ({shown})() === 'true,false'", timeout=20_000)
        assert_clean_log(srv.log)
