"""Presenters: context blocks named by the step that made them, a retry's wait shown
with its cap, the presenter pace of the demo scenarios, the trimming demo's inline ledger."""

from __future__ import annotations

import shutil
import sys
import time
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from streamlit.testing.v1 import AppTest  # noqa: E402

from agent_core.records.files import load_record  # noqa: E402
from agent_core.run import demo  # noqa: E402
from agent_core.settings import Settings  # noqa: E402
from ui.run_view import name_blocks, waited_text  # noqa: E402

SMALL_DELAYS = (0.02, 0.04)
"""Real but short retry waits, so a wait and its cap are both on screen."""


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "agent_data"
    shutil.copytree(ROOT / "agent_data" / "workspace", root / "workspace")
    (root / "runs").mkdir()
    monkeypatch.setenv("AGENT_DATA_DIR", str(root))
    monkeypatch.setenv("RETRY_MAX_DELAY", "30")
    monkeypatch.setattr(demo, "DEMO_RETRY_DELAYS", SMALL_DELAYS)
    return root


def _records(root: Path) -> list[dict[str, Any]]:
    return [load_record(p) for p in sorted((root / "runs").glob("*.json"))]


def _run_demo(scenario: str, *, pace: bool = False) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    at.switch_page("pages/run.py").run()
    at.selectbox(key="run_demo_pick").select(scenario).run()
    if pace:
        at.toggle(key="run_demo_pace").set_value(True).run()
    at.button(key="run_demo_start").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _texts(at: AppTest) -> list[str]:
    return [str(c.value) for c in at.caption] + [str(m.value) for m in at.markdown]


def test_blocks_are_named_by_the_step_that_made_them(data_dir: Path) -> None:
    at = _run_demo("trimming")
    texts = _texts(at)
    # Step 4 sees the blocks of steps 2 and 3; step 1's is trimmed (limit 2). No 0-based index.
    assert any(
        "Context sent: the goal and the blocks from steps 2, 3 · trimmed: the block from step 1" in t for t in texts
    ), texts
    assert not any("blocks 0" in t or "blocks 1, 2" in t for t in texts)
    # The trimming demo draws its ledger inline, blocks named the same way.
    ledger = next(d.value for d in at.dataframe if "made_in_step" in d.value.columns)
    assert list(ledger["block"]) == [f"from step {n}" for n in range(1, 6)]
    assert list(ledger.loc[0, ["step 2", "step 3", "step 4"]]) == ["sent", "sent", "trimmed"]

    # History's ledger and step table: the same names.
    (record,) = _records(data_dir)
    hist = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    hist.run()
    hist.switch_page("pages/history.py")
    hist.query_params["run"] = record["run_id"]
    hist.run()
    assert not hist.exception, [e.value for e in hist.exception]
    frames = [d.value for d in hist.dataframe]
    ledger = next(f for f in frames if "made_in_step" in f.columns)
    assert list(ledger["block"]) == [f"from step {n}" for n in range(1, 6)]
    steps = next(f for f in frames if "blocks_trimmed" in f.columns)
    assert steps.loc[3, "blocks_sent"] == "the blocks from steps 2, 3"
    assert steps.loc[3, "blocks_trimmed"] == "the block from step 1"


def test_name_blocks_without_a_known_step() -> None:
    assert name_blocks([], {}) == "none"
    assert name_blocks([0, 7], {0: 1}) == "the block from step 1, block #7"


def test_a_retry_shows_its_wait_with_its_cap(data_dir: Path) -> None:
    at = _run_demo("retry_fallback")
    (record,) = _records(data_dir)
    first = record["tool_calls"][0]["attempts"]
    # The cap of each wait is its base wait (capped by RETRY_MAX_DELAY), stored with the wait.
    assert [a.get("wait_cap_s") for a in first] == [0.02, 0.04, None]
    assert all(0 <= a["wait_s"] <= a["wait_cap_s"] for a in first[:2])
    tables = [d.value for d in at.dataframe if "waited" in d.value.columns]
    assert tables, "no attempts table"
    # Few columns, the wait and the duration right after the attempt (in view at 800 px).
    assert list(tables[0].columns[:3]) == ["attempt", "waited", "duration"]
    assert list(tables[0]["attempt"]) == ["1 ✗", "2 ✗", "3 ✓"]
    assert list(tables[0]["waited"]) == [f"{first[0]['wait_s']:.2f} s", f"{first[1]['wait_s']:.2f} s", ""]
    # Each wait in full, with its cap, above the table.
    texts = [str(c.value) for c in at.caption]
    for attempt, cap in ((first[0], "0.02"), (first[1], "0.04")):
        sentence = f"attempt {attempt['attempt']} of search\\_web: waited {attempt['wait_s']:.2f} s of at most {cap} s, randomised"
        assert any(sentence in t for t in texts), (sentence, texts)


def test_waited_text_with_a_server_retry_after_or_an_old_record() -> None:
    assert waited_text({"wait_s": 1.5}) == "waited 1.50 s"
    assert waited_text({"wait_s": 0.0}) == ""
    assert waited_text({}) == ""


def test_presenter_pace_slows_the_demo_down(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pace = 0.25
    monkeypatch.setattr(demo, "PRESENTER_PACE_S", pace)
    t0 = time.perf_counter()
    _run_demo("duplicate", pace=True)  # 4 model turns
    paced = time.perf_counter() - t0
    (record,) = _records(data_dir)
    assert record["status"] == "completed"
    assert record["settings"]["retry_delays"] == [pace * f for f in demo.PRESENTER_RETRY_FACTORS]
    model_ms = [s["model_duration_ms"] for s in record["steps"]]
    assert len(model_ms) == 4 and all(ms >= pace * 1000 * 0.9 for ms in model_ms), model_ms
    assert paced >= 4 * pace


def test_pace_off_is_fast_and_the_engine_takes_a_pace(data_dir: Path) -> None:
    settings = Settings.from_env(dotenv=False)
    fast = demo.prepare("duplicate", settings).run_to_end()
    assert all(s["model_duration_ms"] < 100 for s in fast["steps"])
    paced = demo.prepare("retry_fallback", settings, pace_s=0.05).run_to_end()
    assert paced["settings"]["retry_delays"] == [0.075, 0.15]
    assert all(s["model_duration_ms"] >= 45 for s in paced["steps"])
    with pytest.raises(ValueError, match="pace"):
        demo.prepare("duplicate", settings, pace_s=-1)
