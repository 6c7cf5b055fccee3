"""End-to-end on the team store: a goal run in one app instance shows up in History and Tool stats
of a second instance on the same PostgreSQL database (its own, empty runs folder)."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from browser_kit import (
    ROOT,
    assert_clean_log,
    browser_page,
    choose_provider,
    chromium,
    fresh_data_dir,
    needs_chromium,
    start_run,
    streamlit_app,
    wait_idle,
)

if TYPE_CHECKING:
    from playwright.sync_api import Page

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

pytestmark = [pytest.mark.browser, pytest.mark.postgres, needs_chromium]
GOAL = "단가를 확인해서 제품 7개의 총 가격을 계산해 주세요."
ENV = {"RETRY_DELAYS": "0,0", "SEARCH_WEB_FAILURE_RATE": "0"}


def _open(page: Page, url: str, text: str) -> None:
    page.goto(url)
    page.get_by_text(text).first.wait_for(timeout=60_000)
    wait_idle(page)


def test_a_run_in_one_instance_is_in_history_of_another(pg_url: str, tmp_path: Path) -> None:
    writer_dir = fresh_data_dir(tmp_path / "writer")
    reader_dir = fresh_data_dir(tmp_path / "reader")
    team = {**ENV, "AGENT_STORE_URL": pg_url}
    with (
        streamlit_app(writer_dir, {**team, "AGENT_USER": "ana"}) as writer,
        streamlit_app(reader_dir, {**team, "AGENT_USER": "bo"}) as reader,
        chromium() as browser,
        browser_page(browser) as page,
    ):
        _open(page, writer.url + "/", "Run an agent")
        choose_provider(page, "offline")
        start_run(page, GOAL)
        page.get_by_text("Outcome:").first.wait_for()
        wait_idle(page)
        page.get_by_role("link", name=re.compile("Open this run in History")).click()
        page.get_by_text("Run detail").first.wait_for()
        run_id = page.url.rsplit("=", 1)[1]
        assert re.fullmatch(r"[0-9a-f-]{36}", run_id)

        # The second instance has never seen this run in its folder: it reads the database.
        assert not list((reader_dir / "runs").glob("*.json"))
        _open(page, reader.url + "/history", "runs shown")
        page.get_by_text("User", exact=True).first.wait_for()  # the runs say who ran them
        main = page.locator('[data-testid="stMain"]').inner_text()
        assert "1 of 1 runs shown." in main, main
        page.screenshot(path="/tmp/pg-browser-list.png", full_page=True)
        page.get_by_role("combobox", name="Open a run").click()
        option = page.get_by_role("option", name=re.compile("제품 7개"))
        option.click()
        page.get_by_text("Run detail").first.wait_for()
        wait_idle(page)
        main = page.locator('[data-testid="stMain"]').inner_text()
        assert run_id in main and "168" in main and "Answered" in main, main
        page.screenshot(path="/tmp/pg-browser-history.png", full_page=True)

        _open(page, reader.url + "/tool_stats", "Per tool")
        main = page.locator('[data-testid="stMain"]').inner_text()
        assert "Coverage" in main and "No tool calls" not in main, main
        assert_clean_log(writer.log)
        assert_clean_log(reader.log)
