"""open_store: the folder without AGENT_STORE_URL; the team store with it, which reads the local
folder (and says why) while the database cannot be reached."""

from __future__ import annotations

from pathlib import Path

import pytest
from pgserver import PASSWORD, free_port

from agent_core.errors import RecordError
from agent_core.loop import run_to_end
from agent_core.pgstore import sink
from agent_core.providers.scripted import ScriptedProvider
from agent_core.run_store import TeamStore, open_store
from agent_core.settings import Settings
from agent_core.store import RunStore
from agent_core.tools.registry import ToolRegistry


@pytest.fixture(autouse=True)
def _fresh_writers() -> object:
    sink.forget_writers()
    yield
    sink.forget_writers()


def test_without_a_url_it_is_the_folder(settings: Settings) -> None:
    assert type(open_store(settings)) is RunStore


def test_team_store_down_reads_the_folder_and_says_where(settings: Settings) -> None:
    port = free_port()
    config = settings.replace(store_url=f"postgresql://workbench:{PASSWORD}@127.0.0.1:{port}/workbench")
    record = run_to_end("g", provider=ScriptedProvider([{"text": "done"}]), registry=ToolRegistry(), settings=config)
    store = open_store(config)
    assert isinstance(store, TeamStore)
    store.refresh()
    assert store.problem is not None and f"Cannot reach the team store at 127.0.0.1:{port}" in store.problem
    assert PASSWORD not in store.problem and PASSWORD not in store.label
    assert store.runs()["run_id"].tolist() == [record["run_id"]]
    assert store.load(record["run_id"])["answer"] == "done"
    with pytest.raises(RecordError):
        store.load("01a00000-0000-7000-8000-000000000000")
    (settings.runs_dir / "broken.json").write_text("{")
    store.refresh()
    assert [name for name, _ in store.problems()] == ["broken.json"]
    assert isinstance(Path(store.runs_dir), Path)
