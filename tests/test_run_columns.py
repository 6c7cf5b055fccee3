"""The run summary columns are written once (run_columns.RUN_COLUMN_SPEC); index, store and table follow."""

from __future__ import annotations

from agent_core.records.columns import RUN_COLUMN_SPEC, RUN_FIELDS, TABLE_COLUMNS
from agent_core.records.index import RUN_FIELDS as INDEX_FIELDS
from agent_core.records.index import RunIndex, default_index_path
from agent_core.records.store import RUN_COLUMNS, RunStore
from agent_core.run import demo
from agent_core.settings import Settings


def test_one_column_list_feeds_the_index_and_the_table() -> None:
    assert INDEX_FIELDS == RUN_FIELDS == tuple(c.name for c in RUN_COLUMN_SPEC)
    assert RUN_COLUMNS == [*TABLE_COLUMNS, "path"]
    assert len(set(RUN_FIELDS)) == len(RUN_FIELDS)


def test_blocks_trimmed_column_from_a_fresh_parse_and_from_the_index(settings: Settings) -> None:
    prepared = demo.prepare("trimming", settings)  # 5 tool steps, 2 blocks sent: blocks 0-2 trimmed at the end
    record = prepared.run_to_end()
    assert record["steps"][-1]["blocks_trimmed"] == [0, 1, 2]
    store = RunStore(settings.runs_dir)
    store.refresh()
    runs = store.runs()
    assert list(runs.columns) == RUN_COLUMNS
    assert runs.loc[0, "blocks_trimmed"] == 3 and runs.loc[0, "run_id"] == record["run_id"]
    # A second store reads the row back from the persisted index, not from the file.
    assert RunIndex(default_index_path(settings.runs_dir)).load()
    again = RunStore(settings.runs_dir)
    again.refresh()
    assert again.runs().loc[0, "blocks_trimmed"] == 3
