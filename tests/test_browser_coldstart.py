"""The local model loads when the server starts, and the first Run click waits for that load.

``streamlit run serve.py`` starts the load before any page is open. The Run page shows the
background load's progress; a Run clicked at once reuses the model and the warmed prompt the early
load made (the record says ``loaded_now: false``, ``prompt_cache: "in memory"``): there is never a
second load.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from browser_kit import assert_clean_log, browser_page, chromium, fresh_data_dir, needs_chromium, streamlit_app

pytestmark = [pytest.mark.browser, pytest.mark.local_model, needs_chromium]

SEED_GOAL = "단가를 확인해서 제품 7개의 총 가격을 계산해 주세요."


def test_the_first_run_waits_for_the_early_load(tmp_path: Path) -> None:
    from agent_core.providers import local

    if local.availability() is not None:
        pytest.skip(f"the local model is not installed: {local.availability()}")
    data = fresh_data_dir(tmp_path / "agent_data")
    with (
        streamlit_app(data, {"LOCAL_PRELOAD": "1", "REQUEST_TIMEOUT": "300"}) as app,
        chromium() as browser,
        browser_page(browser) as page,
    ):
        # No page is open yet: the server's start alone loads the model and saves its prompt.
        deadline = time.monotonic() + 300
        while not list((data / "cache" / "prompt").glob("*.slot")):
            assert time.monotonic() < deadline, "the server's start did not load the model"
            time.sleep(0.5)
        page.goto(app.url + "/")
        area = page.get_by_label("Goal", exact=True)
        area.wait_for(timeout=60_000)
        page.get_by_text(re.compile("Loading the local model in the background|Local model ready")).first.wait_for(
            timeout=30_000
        )
        page.screenshot(path="/tmp/coldstart-preload.png")
        area.fill(SEED_GOAL)
        area.press("Control+Enter")
        page.wait_for_timeout(500)
        clicked = time.monotonic()
        page.locator(".st-key-run_start button").click()
        page.get_by_text(re.compile("^Outcome: .*Answered")).first.wait_for(timeout=600_000)
        took = time.monotonic() - clicked
        (record,) = [json.loads(p.read_text(encoding="utf-8")) for p in (data / "runs").glob("*.json")]
        assert record["status"] == "completed" and "168" in record["answer"].replace(",", "")
        meta = record["provider_meta"]
        assert meta["loaded_now"] is False and meta["prompt_cache"] == "in memory", meta
        assert list((data / "cache" / "prompt").glob("*.slot"))  # the early load saved the prompt
        print(f"first Run click → answer: {took:.1f} s")
    assert_clean_log(app.log)
