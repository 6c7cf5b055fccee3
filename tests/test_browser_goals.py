"""End-to-end (headless Chromium): 20 flagged runs become goals in at most 3 clicks each, and adding
them again adds none; 50 runs are labelled from the keyboard in the Review queue.

The runs are real offline runs the answer check flags (tests/goals_kit.py), saved before the server
starts. Screenshots at 1400 and 800 px go to /tmp/agent-workbench-shots/ (or ``$SCREENSHOT_DIR``).
"""

from __future__ import annotations

import os
import re
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

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

if TYPE_CHECKING:
    from playwright.sync_api import Page

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from agent_core.evals.goalset import load_goal_set  # noqa: E402
from agent_core.records.labels import FolderLabels  # noqa: E402
from agent_core.settings import Settings  # noqa: E402
from tests.goals_kit import flagged_runs, offline_run  # noqa: E402

SHOTS = Path(os.environ.get("SCREENSHOT_DIR", "/tmp/agent-workbench-shots"))
ENV = {"RETRY_DELAYS": "0,0", "SEARCH_WEB_FAILURE_RATE": "0"}

pytestmark = [pytest.mark.browser, needs_chromium]


def shoot(page: Page, name: str) -> None:
    """The page at 1400 and 800 px, its whole height."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    for width in (1400, 800):
        page.set_viewport_size({"width": width, "height": 1000})
        page.wait_for_timeout(400)
        height = page.evaluate(
            "() => Math.max(1000, ...Array.from(document.querySelectorAll('[data-testid=\"stMain\"]'))"
            ".map(e => e.scrollHeight))"
        )
        page.set_viewport_size({"width": width, "height": min(int(height) + 40, 6000)})
        page.wait_for_timeout(500)
        page.screenshot(path=str(SHOTS / f"{name}-{width}.png"))
    page.set_viewport_size({"width": 1400, "height": 1000})


class Clicks:
    """Counts the clicks a person makes, per run."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.count = 0

    def __call__(self, locator: object) -> None:
        self.count += 1
        locator.click()  # type: ignore[attr-defined]


def test_twenty_flagged_runs_become_goals_in_three_clicks_each(tmp_path: Path) -> None:
    data_dir = fresh_data_dir(tmp_path / "agent_data")
    config = Settings(data_dir=data_dir, retry_delays=(0.0,), search_web_failure_rate=0.0)
    for goal in ("What's the weather in Paris?", "How much do 7 units cost in total?"):
        offline_run(config, goal)  # answers the check does not flag
    flagged = {r["run_id"] for r in flagged_runs(config, 20)}
    target = data_dir / "goal_sets" / "from-runs.yaml"
    with streamlit_app(data_dir, ENV) as app, chromium() as browser, browser_page(browser) as page:
        page.goto(app.url + "/history")
        page.get_by_text("22 of 22 runs shown").first.wait_for(timeout=60_000)
        wait_idle(page)
        # Once: show only the runs the answer check flagged.
        checks = page.locator("[data-testid='stMultiSelect']").filter(has_text="Answer check")
        checks.locator("input").click()
        page.get_by_role("option").filter(has_text="partly").first.click()
        page.keyboard.press("Escape")
        page.get_by_text("20 of 22 runs shown").first.wait_for()
        wait_idle(page)

        click = Clicks(page)
        per_run = []
        t0 = time.monotonic()
        open_first_row(
            page, page.locator(".st-key-history_wide [data-testid='stDataFrame']"), "Run 1 of 20 in the table"
        )
        click.count += 1  # the first row: its run opens (a click tried again on a layout race counts once)
        wait_idle(page)
        click(page.get_by_test_id("stExpander").filter(has_text="Add to a goal set").locator("summary"))
        add = page.locator(".st-key-goals_add_run button")
        add.wait_for()
        wait_idle(page)
        shoot(page, "goals-01-run-panel")
        for n in range(1, 21):
            if n > 1:
                click(page.get_by_role("button", name="Next run ›"))
                page.get_by_text(f"Run {n} of 20 in the table").first.wait_for()
                wait_idle(page)
            click(add)
            page.get_by_text("Added 1 goal(s)").first.wait_for()
            wait_idle(page)
            per_run.append(click.count)
            click.count = 0
        seconds = time.monotonic() - t0
        assert max(per_run) <= 3 and sum(per_run) <= 60, per_run
        goals = load_goal_set(target).goals
        assert len(goals) == 20 and {g.from_run.run_id for g in goals if g.from_run} == flagged
        assert all({c.kind for c in g.checks} >= {"tool_used", "grounded"} for g in goals)
        shoot(page, "goals-02-added")

        # Adding them again, all at once from the filter: 0 added.
        page.get_by_role("button", name="← all runs").click()
        page.get_by_text("20 of 22 runs shown").first.wait_for()
        wait_idle(page)
        page.get_by_test_id("stExpander").filter(has_text="Add the 20 runs of this filter").locator("summary").click()
        bulk = page.locator(".st-key-goals_add_bulk button")
        bulk.wait_for()
        wait_idle(page)
        assert bulk.inner_text().strip() == "Add 20 goal(s)"
        bulk.click()
        page.get_by_text(re.compile("20 already in goal_sets/from-runs.yaml")).first.wait_for()
        wait_idle(page)
        assert len(load_goal_set(target).goals) == 20
        shoot(page, "goals-03-bulk-again")
        assert_clean_log(app.log)
    print(f"\n20 runs → goals: clicks per run {per_run}, {seconds:.1f} s")


def test_fifty_runs_labelled_from_the_keyboard(tmp_path: Path) -> None:
    data_dir = fresh_data_dir(tmp_path / "agent_data")
    config = Settings(data_dir=data_dir, retry_delays=(0.0,), search_web_failure_rate=0.0)
    runs = flagged_runs(config, 50)
    newest_first = [r["run_id"] for r in reversed(runs)]
    expected = {rid: "fail" if n % 3 == 0 else "pass" for n, rid in enumerate(newest_first)}
    labels = FolderLabels.beside(config.runs_dir)
    with streamlit_app(data_dir, ENV) as app, chromium() as browser, browser_page(browser) as page:
        page.goto(app.url + "/review")
        page.get_by_text("0 labelled this session · 50 left in this queue").first.wait_for(timeout=60_000)
        wait_idle(page)
        shoot(page, "review-01-queue")
        # The first one with a reason typed: leave the box (Escape), then the key.
        reason = page.get_by_label("Reason (optional)")
        reason.fill("the 100 comes from nowhere")
        reason.press("Enter")
        wait_idle(page)
        page.locator(".st-key-review_card").get_by_text("Goal").first.click()  # the cursor leaves the box
        t0 = time.monotonic()
        for n, run_id in enumerate(newest_first):
            page.keyboard.press("f" if expected[run_id] == "fail" else "p")
            page.get_by_text(f"{n + 1} labelled this session").first.wait_for()
            wait_idle(page)
            if n == 0:
                shoot(page, "review-02-after-one")
        seconds = time.monotonic() - t0
        page.get_by_text("Nothing left to label in this queue.").first.wait_for()
        shoot(page, "review-03-done")
        assert_clean_log(app.log)
    given = {x.run_id: x for x in labels.all()}
    assert {rid: x.verdict for rid, x in given.items()} == expected
    assert given[newest_first[0]].reason == "the 100 comes from nowhere"
    print(f"\n50 runs labelled from the keyboard in {seconds:.1f} s ({seconds / 50:.2f} s a run)")
