"""The smaller things of issue 35 (item 8): the sample-documents note once per server, not a toast
in every session; example goals in the browser's language first; a finished run's gauge; the HTML
export in the dashboard's words; Coverage leaves fallbacks alone; Evals offers "Your own model
server" only while one answers."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from test_pages import ROOT, app, data_dir, offline_run  # noqa: F401 - data_dir is a fixture

import ui.common as ui_common
from agent_core.analysis.export_html import export_html
from agent_core.run.demo import EXAMPLE_GOALS
from ui.common import examples_for


def _sidebar_text(at) -> str:  # type: ignore[no-untyped-def]
    return " ".join(str(c.value) for c in at.sidebar.caption)


def test_the_sample_documents_note_is_said_once_in_the_sidebar(data_dir: Path) -> None:  # noqa: F811
    shutil.rmtree(data_dir / "workspace")
    first = app()
    assert "the sample documents were copied" in _sidebar_text(first)
    assert not first.toast
    second = app()  # a new browser session on the same server: nothing to say
    assert "the sample documents were copied" not in _sidebar_text(second)


def test_examples_in_the_browsers_language_first() -> None:
    english = examples_for(EXAMPLE_GOALS, "en-US")
    korean = examples_for(EXAMPLE_GOALS, "ko-KR")
    assert english[0] == "What is (24*7)+100?" and korean[0].startswith("단가")
    assert sorted(english) == sorted(korean) == sorted(EXAMPLE_GOALS)
    assert examples_for(EXAMPLE_GOALS, None)[0] == english[0]


def test_a_finished_runs_gauge_is_full(data_dir: Path) -> None:  # noqa: F811
    at = app()
    help_text = at.selectbox(key="run_example").help or ""
    assert "offline demo model understands" not in help_text and "any model" in help_text
    at.selectbox(key="run_provider").select("offline").run()
    at.text_area(key="run_goal").input("What is (24*7)+100?")
    at.button(key="run_start").click().run()
    bars = [b for b in at.get("progress") if "step limit" in str(b.proto.text)]
    assert bars and bars[-1].proto.value == 100, [(b.proto.value, b.proto.text) for b in bars]
    assert str(bars[-1].proto.text) == "Ended after 2 steps (step limit 10)"


def test_the_html_export_speaks_the_dashboards_words(data_dir: Path) -> None:  # noqa: F811
    record = offline_run("Search the documents for the refund policy and tell me how many days I have")
    page = export_html(record)
    assert "✅ Answered" in page and ">completed<" not in page
    assert "the block from step 1" in page and "blocks 0" not in page
    assert "<b>Answer check</b>" in page


def test_coverage_does_not_ask_to_fix_a_fallbacks_description(data_dir: Path) -> None:  # noqa: F811
    offline_run("What is (24*7)+100?")  # offers every tool, search_cached among them
    at = app("pages/tool_stats.py")
    never = [w.value for w in at.warning if "Never chosen" in w.value]
    assert never and "search" in never[0] and "search\\_cached" not in never[0] and "search_cached" not in never[0]
    assert any("Fallback tools" in c.value and "search" in c.value for c in at.caption)


def test_evals_offer_your_own_server_only_while_it_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    from browser_kit import free_port

    from agent_core.evals.goalset import bundled_sets, load_goal_set
    from ui.evals import provider_choices

    monkeypatch.setenv("OPENAI_COMPAT_BASE_URL", f"http://127.0.0.1:{free_port()}/v1")
    choices, _ = provider_choices(load_goal_set(bundled_sets()[0]))
    assert "openai-chat" not in choices and "offline" in choices


def test_the_readmes_first_screen_answers_a_newcomers_first_questions() -> None:
    """Item 10: how to start, how to use my own documents, how to add a tool — in the first 29
    lines (one screen), before the screenshot and the tables."""
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    first = "\n".join(lines[:29])
    for heading in ("## Start", "## Use your own documents", "## Add a tool"):
        assert heading in first, heading
    assert "./scripts/run-app.sh" in first and "./scripts/run-tests.sh" in first
    assert "Workspace" in first and "Tools" in first
    assert "![" not in first  # the screenshot comes after the answers


def test_times_are_shown_in_the_viewers_zone_with_utc_beside(monkeypatch: pytest.MonkeyPatch) -> None:
    """Item 8: a run's time in the browser's zone, UTC beside it; UTC alone when the browser gives
    no zone (or one this machine does not know)."""
    when = "2026-12-03T12:55:29+00:00"
    assert ui_common.fmt_time(when) == "2026-12-03 12:55:29 UTC"
    monkeypatch.setattr(ui_common, "viewer_zone", lambda: "Asia/Seoul")
    assert ui_common.fmt_time(when) == "2026-12-03 21:55:29 KST (12:55 UTC)"
    monkeypatch.setattr(ui_common, "viewer_zone", lambda: "Nowhere/Else")
    assert ui_common.fmt_time(when) == "2026-12-03 12:55:29 UTC"
