"""The Evals page (AppTest, and one run in Chromium) and History's filter by eval."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from streamlit.testing.v1 import AppTest  # noqa: E402

from agent_core.evals.goalset import parse_goal_set  # noqa: E402
from agent_core.evals.runner import Target, list_results, run_eval  # noqa: E402
from agent_core.settings import Settings  # noqa: E402
from ui import evals as evui  # noqa: E402


@pytest.fixture
def data_dir(app_data_dir: Path) -> Path:
    return app_data_dir


def app(page: str, query: dict[str, str] | None = None) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    at.switch_page(page)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def texts(at: AppTest) -> str:
    return "\n".join(
        str(e.value)
        for kind in ("markdown", "caption", "info", "warning", "error", "subheader")
        for e in getattr(at, kind)
    )


def test_run_an_eval_see_results_open_a_cell_and_filter_history(data_dir: Path) -> None:
    at = app("pages/evals.py")
    assert at.selectbox(key="evals_set").value.startswith("seeds")
    assert "No eval yet" in texts(at)
    assert at.multiselect(key="evals_providers_seeds").value == ["offline"]
    at.button(key="evals_start").click().run()
    assert not at.exception, [e.value for e in at.exception]
    settings = Settings.from_env(dotenv=False)
    (result,) = list_results(settings)
    assert result["complete"] and len(result["runs"]) == len(result["goal_set"]["goals"])
    assert at.query_params["eval"] == [result["eval_id"]] or at.query_params["eval"] == result["eval_id"]
    page = texts(at)
    assert "Results · seeds" in page and "No earlier eval of this set" in page
    summary = at.dataframe[0].value
    assert summary.loc[0, "model"] == "offline/offline-planner-1" and summary.loc[0, "pass rate"] == 100.0
    grid = at.dataframe[1].value
    assert list(grid.columns) == ["offline"] and set(grid["offline"]) == {"pass 1/1"}
    # open a cell: its run with a link to History
    at.selectbox(key=f"evals_cell_{result['eval_id']}").select("arithmetic · offline").run()
    assert not at.exception
    links = [link.proto.page for link in at.get("page_link")]
    assert links.count("history") >= 2
    assert "Repeat 1: ✓ pass" in texts(at)
    # History filtered to that eval (and goal)
    run_id = next(r["run_id"] for r in result["runs"] if r["goal_id"] == "arithmetic")
    hist = app("pages/history.py", {"eval": result["eval_id"], "goal": "arithmetic"})
    assert "Showing the 1 run(s) of goal **arithmetic** of eval" in texts(hist)
    assert hist.dataframe[0].value["run_id"].tolist() == [run_id]
    hist_all = app("pages/history.py", {"eval": result["eval_id"]})
    assert len(hist_all.dataframe[0].value) == len(result["runs"])


def test_flips_trend_and_past_evals(data_dir: Path) -> None:
    settings = Settings.from_env(dotenv=False)
    text = (
        "name: tiny\ngoals:\n  - id: add\n    goal: What is 2+3?\n    checks: [{answer_number: 5}]\n"
        "  - id: mul\n    goal: What is 4*5?\n    checks: [{answer_number: 20}]\n"
    )
    first = run_eval(parse_goal_set(text, "tiny.yaml"), [Target("offline")], settings=settings)
    broken = text.replace("answer_number: 20", "answer_number: 21")
    second = run_eval(parse_goal_set(broken, "tiny.yaml"), [Target("offline")], settings=settings, baseline="latest")
    assert second["baseline"] == first["eval_id"]
    at = app("pages/evals.py", {"eval": second["eval_id"]})
    page = texts(at)
    assert "1 pass→fail and 0 fail→pass among 2" in page and "McNemar p = 1" in page
    flips = at.dataframe[2].value
    assert flips.to_dict("records") == [
        {"goal": "mul", "model": "offline/offline-planner-1", "flip": "pass→fail", "before": "1/1", "after": "0/1"}
    ]
    assert len(at.get("vega_lite_chart")) == 1  # the trend: two evals of the set
    past = at.dataframe[-1].value
    assert past["eval id"].tolist() == [second["eval_id"], first["eval_id"]]
    assert past["pass rates"].tolist()[0] == "offline/offline-planner-1 50%"


def test_unknown_eval_and_bad_upload_are_said_plainly(data_dir: Path) -> None:
    at = app("pages/evals.py", {"eval": "no-such"})
    (warning,) = at.warning
    assert warning.value.startswith("no eval") and "such" in warning.value

    class Upload:
        name = "mine.yaml"

        def getvalue(self) -> bytes:
            return b"name: x\ngoals:\n  - id: a\n    goal: hi\n    checks: [{tool_used: hammer}]\n"

    goal_set, problem = evui.read_set(evui.UPLOAD, Upload())
    assert goal_set is None and problem == (
        "mine.yaml: goal 'a': checks[0].tool_used[0]: unknown tool 'hammer' "
        "(known: calculator, read_file, lookup, word_count, search_documents, "
        "get_weather, search_web, search_cached, convert_measurement, query_table, or an MCP server's server__tool)"
    )


def test_grid_marks_flaky_and_pending_cells() -> None:
    rows: list[dict[str, Any]] = [
        {"goal_id": "a", "target": "offline", "passed": True},
        {"goal_id": "a", "target": "offline", "passed": False},
        {"goal_id": "b", "target": "offline", "passed": True},
    ]
    grid = evui.grid(["a", "b", "c"], ["offline"], rows, 3)
    assert grid["offline"].tolist() == ["flaky 1/2 …", "pass 1/1 …", "·"]
    assert evui.grid(["a"], ["offline"], rows, 2)["offline"].tolist() == ["flaky 1/2"]


@pytest.mark.browser
def test_eval_in_chromium_grid_fills_and_a_cell_opens_its_run(tmp_path: Path) -> None:
    kit = pytest.importorskip("browser_kit")
    if not Path(kit.CHROMIUM).exists():
        pytest.skip("chromium missing")
    data_dir = kit.fresh_data_dir(tmp_path / "agent_data")
    with (
        kit.streamlit_app(data_dir, {"RETRY_DELAYS": "0,0"}) as srv,
        kit.chromium() as browser,
        kit.browser_page(browser, width=1400) as page,
    ):
        page.goto(f"{srv.url}/evals")
        kit.wait_idle(page)
        page.locator(".st-key-evals_start button").click()
        page.get_by_text(re.compile(r"\d+ of 27 runs")).first.wait_for()  # the live grid fills
        page.get_by_text("Results · seeds").wait_for(timeout=60_000)
        kit.wait_idle(page)
        assert "eval=" in page.url
        box = page.get_by_role("combobox", name="Open a cell")
        option = page.get_by_role("option", name="price-total-ko · offline", exact=True)
        for _ in range(5):  # the list can close under a late redraw: open it again
            box.click()
            try:
                option.click(timeout=5_000)
                break
            except kit.sync_api.TimeoutError:
                page.keyboard.press("Escape")
                kit.wait_idle(page)
        kit.wait_idle(page)
        page.screenshot(path=str(tmp_path / "evals-1400.png"), full_page=True)
        page.get_by_role("link", name="Open run").first.click()
        page.wait_for_url(re.compile(r"/history\?run="))
        kit.wait_idle(page)
        run_id = page.url.split("run=")[1].split("&")[0]
        record = json.loads((data_dir / "runs" / f"{run_id}.json").read_text(encoding="utf-8"))
        assert record["eval_goal_id"] == "price-total-ko"
        page.get_by_text("제품 7개의 총 가격은 $168입니다").first.wait_for()
        kit.assert_clean_log(srv.log)
