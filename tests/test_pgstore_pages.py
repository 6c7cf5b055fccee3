"""The team store in the app: runs recorded as AGENT_USER reach PostgreSQL from the Run page, the
banner when the database cannot be reached (host and port, never the password), and the
read-only viewer instance (AGENT_READ_ONLY=1: History and Tool stats, no Run page)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from pgserver import PASSWORD, free_port  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

from agent_core.pgstore import sink  # noqa: E402
from agent_core.records.files import load_record  # noqa: E402


@pytest.fixture
def data_dir(app_data_dir: Path) -> Iterator[Path]:
    sink.forget_writers()
    yield app_data_dir
    sink.forget_writers()


def app() -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def texts(at: AppTest) -> str:
    """Every message on the page, Markdown escapes removed."""
    parts: list[Any] = [*at.warning, *at.info, *at.caption, *at.markdown, *at.error]
    return "\n".join(str(p.value) for p in parts).replace("\\", "")


def run_offline(at: AppTest, goal: str = "What is (24*7)+100?") -> None:
    at.selectbox(key="run_provider").select("offline").run()
    at.text_area(key="run_goal").input(goal)
    at.button(key="run_start").click().run()
    assert not at.exception, [e.value for e in at.exception]


def test_run_page_with_the_team_store_down_runs_on_and_says_where(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    port = free_port()
    monkeypatch.setenv("AGENT_STORE_URL", f"postgresql://workbench:{PASSWORD}@127.0.0.1:{port}/workbench")
    at = app()
    assert f"Team store unavailable** — Cannot reach the team store at 127.0.0.1:{port}" in texts(at)
    run_offline(at)
    (path,) = (data_dir / "runs").glob("*.json")
    assert load_record(path)["status"] == "completed"
    assert "sent to the team store at the next start, or now with: python -m agent_core sync" in texts(at)
    assert PASSWORD not in texts(at)


@pytest.mark.postgres
def test_run_page_saves_to_the_team_store_as_agent_user(
    data_dir: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import psycopg

    monkeypatch.setenv("AGENT_STORE_URL", pg_url)
    monkeypatch.setenv("AGENT_USER", "ana")
    at = app()
    assert not [w for w in at.warning if "Team store" in w.value]
    run_offline(at)
    (path,) = (data_dir / "runs").glob("*.json")
    local = load_record(path)
    with psycopg.connect(pg_url) as conn:
        row = conn.execute("SELECT user_name, status, record->>'user' FROM runs").fetchone()
    assert row == ("ana", "completed", "ana") and local["user"] == "ana"
    assert PASSWORD not in texts(at)


def test_read_only_instance_has_no_run_page(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_READ_ONLY", "1")
    at = app()
    assert at.title[0].value.endswith("History")
    assert "Read-only instance" in texts(at)
    with pytest.raises(Exception):  # noqa: B017 - the Run page is not among the app's pages
        at.switch_page("pages/run.py").run()
        assert not at.button(key="run_start")


@pytest.mark.postgres
def test_the_app_sends_what_an_earlier_session_could_not(
    data_dir: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import psycopg

    from agent_core.pgstore import outbox
    from agent_core.run.prepare import prepare_run
    from agent_core.settings import Settings

    dead = f"postgresql://workbench:{PASSWORD}@127.0.0.1:{free_port()}/workbench"
    offline = Settings.from_env(dotenv=False).replace(store_url=dead)
    record = prepare_run("What is 2+2?", "offline", settings=offline).run_to_end()
    assert outbox.pending(data_dir) == [record["run_id"]]
    sink.forget_writers()
    monkeypatch.setenv("AGENT_STORE_URL", pg_url)
    app()  # the app starts: the outbox goes first
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT run_id, status FROM runs").fetchall() == [(record["run_id"], "completed")]
    assert outbox.pending(data_dir) == []
