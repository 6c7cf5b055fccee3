"""People's labels on runs: kept beside the runs (never in a record), the newest wins, exchanged as
JSON lines, and the same through the team store; the ``label`` and ``labels`` commands."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_core.cli.main import main
from agent_core.records.files import load_record
from agent_core.records.labels import (
    FolderLabels,
    Label,
    LabelError,
    from_mapping,
    parse_jsonl,
    to_jsonl,
)
from agent_core.settings import Settings
from tests.goals_kit import offline_run


def _label(run_id: str, verdict: str = "fail", at: str = "2026-01-02T03:04:05.000006Z", **more: Any) -> Label:
    return from_mapping({"run_id": run_id, "verdict": verdict, "labelled_at": at, **more})


def test_folder_labels_keep_the_newest_and_survive_bad_lines(tmp_path: Path) -> None:
    labels = FolderLabels(tmp_path / "labels.jsonl")
    assert labels.all() == [] and labels.get(["a"]) == {}
    first = labels.put([_label("a", "fail", reason="made-up figure"), _label("b", "pass")])
    assert (first.added, first.replaced, first.kept) == (2, 0, 0)
    later = _label("a", "pass", at="2026-01-03T00:00:00Z", corrected_answer="It is 19 °C")
    older = _label("b", "fail", at="2025-12-31T00:00:00Z")
    count = labels.put([later, older])
    assert (count.added, count.replaced, count.kept) == (0, 1, 1)
    assert labels.get(["a", "b", "c"]) == {"a": later, "b": _label("b", "pass")}
    # A broken line (a crash mid-write, a hand edit) is skipped and said; the rest still reads.
    with open(labels.path, "a", encoding="utf-8") as out:
        out.write('{"run_id": "c", "verdict": "maybe"}\n{not json\n')
    assert set(labels.get(["a", "b", "c"])) == {"a", "b"}
    assert len(labels.problems) == 2 and "line 4" in labels.problems[0]
    assert labels.remove("a") and not labels.remove("a")
    assert labels.by_verdict(["pass"]) == {"b"}
    # A second reader (another process) sees the same.
    assert FolderLabels(labels.path).all() == [_label("b", "pass")]


def test_the_journal_is_compacted_when_old_lines_outnumber_live_ones(tmp_path: Path) -> None:
    labels = FolderLabels(tmp_path / "labels.jsonl")
    for n in range(260):  # one run labelled again and again: superseded lines pile up
        labels.put([_label("same-run", "pass" if n % 2 else "fail", at=f"2026-01-01T00:{n // 60:02d}:{n % 60:02d}Z")])
    lines = labels.path.read_text(encoding="utf-8").splitlines()
    assert len(lines) < 210 and labels.get(["same-run"])["same-run"].verdict == "pass"


def test_jsonl_round_trip_and_one_line_errors() -> None:
    labels = [
        _label("r1", "fail", reason="says 20 °C", corrected_answer="19 °C", user="ana"),
        _label("r2", "pass", reason="한국어 이유"),
    ]
    assert parse_jsonl(to_jsonl(labels)) == labels
    assert parse_jsonl(to_jsonl(labels).encode("utf-8")) == labels
    for text, message in (
        ('{"run_id": "x", "verdict": "pass"}\n[1]\n', "labels.jsonl: line 2: expected a JSON object"),
        ('{"run_id": "x", "verdict": "ok"}', "line 1: verdict: expected pass or fail, got 'ok'"),
        ('{"run_id": "x", "verdict": "pass", "score": 1}', "line 1: score: unknown field"),
        ('{"run_id": "../x", "verdict": "pass"}', "line 1: run_id: expected a run id"),
        ('{"run_id": "x", "verdict": "pass", "labelled_at": "yesterday"}', "line 1: labelled_at: not an ISO"),
        ("{oops", "line 1: not JSON"),
    ):
        with pytest.raises(LabelError) as caught:
            parse_jsonl(text, "labels.jsonl")
        assert message in str(caught.value) and "\n" not in str(caught.value)


def test_label_commands_and_jsonl_export_import(settings: Settings, monkeypatch: Any, capsys: Any) -> None:
    monkeypatch.setenv("AGENT_DATA_DIR", str(settings.data_dir))
    monkeypatch.setenv("AGENT_USER", "ana")
    run = offline_run(settings, "What is 17% of 2,340?")
    before = (settings.runs_dir / f"{run['run_id']}.json").read_bytes()
    assert main(["label", run["run_id"], "fail", "--reason", "flagged figure", "--answer", "It is 397.8"]) == 0
    assert (settings.runs_dir / f"{run['run_id']}.json").read_bytes() == before  # the record is untouched
    assert "label" not in load_record(settings.runs_dir / f"{run['run_id']}.json")
    assert main(["label", "no-such-run", "pass"]) == 2
    out = settings.data_dir / "out.jsonl"
    assert main(["labels", "export", str(out)]) == 0
    (exported,) = parse_jsonl(out.read_text(encoding="utf-8"))
    assert (exported.verdict, exported.reason, exported.corrected_answer, exported.user) == (
        "fail",
        "flagged figure",
        "It is 397.8",
        "ana",
    )
    # Into another data folder: the same labels come back.
    other = settings.data_dir.parent / "other"
    (other / "runs").mkdir(parents=True)
    monkeypatch.setenv("AGENT_DATA_DIR", str(other))
    capsys.readouterr()
    assert main(["labels", "import", str(out)]) == 0
    assert "1 new" in capsys.readouterr().out
    assert FolderLabels.beside(other / "runs").all() == [exported]
    assert main(["labels", "import", str(out)]) == 0  # again: nothing changes
    assert "0 new, 0 replaced an older one, 1 kept" in capsys.readouterr().out
    bad = other / "bad.jsonl"
    bad.write_text(out.read_text() + '{"run_id": "x"}\n', encoding="utf-8")
    assert main(["labels", "import", str(bad)]) == 2
    assert "bad.jsonl: line 2: verdict" in capsys.readouterr().err
    assert len(FolderLabels.beside(other / "runs").all()) == 1  # nothing of the bad file was taken
    monkeypatch.setenv("AGENT_DATA_DIR", str(settings.data_dir))
    assert main(["label", run["run_id"], "clear"]) == 0
    assert FolderLabels.beside(settings.runs_dir).all() == []


# -- the team store -------------------------------------------------------------------------------
@pytest.mark.postgres
def test_labels_round_trip_through_the_team_store(pg_url: str, tmp_path: Path) -> None:
    pytest.importorskip("psycopg")
    from agent_core.pgstore.labels import PgLabels, TeamLabels, sync_labels

    labels = [
        _label("r1", "fail", reason="says 20 °C", corrected_answer="19 °C", user="ana"),
        _label("r2", "pass", reason="\x00 stripped; 'quotes' and $$ kept", user=None),
        _label("r3", "fail", at="2026-05-06T07:08:09.123456+00:00"),
    ]
    table = PgLabels.from_url(pg_url)
    try:
        count = table.put(labels)
        assert (count.added, count.replaced, count.kept) == (3, 0, 0)
        assert table.all() == labels  # oldest first, every field as given
        assert parse_jsonl(to_jsonl(table.all())) == labels
        newer = _label("r1", "pass", at="2026-02-01T00:00:00Z")
        count = table.put([newer, _label("r2", "fail", at="2025-01-01T00:00:00Z")])
        assert (count.added, count.replaced, count.kept) == (0, 1, 1)
        assert table.get(["r1", "r2", "zz"]) == {"r1": newer, "r2": labels[1]}
        assert table.by_verdict(["pass"]) == {"r1", "r2"}
        assert table.remove("r3") and not table.remove("r3")

        # TeamLabels: written to the folder first, then the table; read from the table.
        folder = FolderLabels(tmp_path / "labels.jsonl")
        team = TeamLabels(table, folder, pg_url)
        fresh = Label.make("r4", "fail", reason="from the page")
        team.put([fresh])
        assert team.get(["r4"]) == {"r4": fresh} == folder.get(["r4"]) and team.problem is None
        # sync: the folder's labels to the table and back, newest winning (idempotent)
        folder.put([_label("r5", "pass")])
        up, down = sync_labels(table, folder)
        assert up.added == 1 and down.added == 2  # r5 went up; r1 and r2 came down
        assert {x.run_id for x in folder.all()} == {x.run_id for x in table.all()} == {"r1", "r2", "r4", "r5"}
        up, down = sync_labels(table, folder)
        assert up.added + up.replaced + down.added + down.replaced == 0
    finally:
        table.close()


@pytest.mark.postgres
def test_a_team_store_that_is_down_keeps_labels_in_the_folder(tmp_path: Path) -> None:
    pytest.importorskip("psycopg")
    from agent_core.pgstore.labels import PgLabels, TeamLabels

    url = "postgresql://u:secret@127.0.0.1:9/none"
    team = TeamLabels(PgLabels.from_url(url), FolderLabels(tmp_path / "labels.jsonl"), url)
    label = Label.make("r1", "fail")
    team.put([label])
    assert team.problem and "secret" not in team.problem and "127.0.0.1" in team.problem
    assert team.get(["r1"]) == {"r1": label}  # read from the folder meanwhile


def test_label_store_is_the_folder_without_a_team_store(settings: Settings) -> None:
    from agent_core.pgstore.labels import label_store

    store = label_store(settings)
    assert isinstance(store, FolderLabels) and store.path == settings.data_dir / "labels.jsonl"
    assert json.loads(json.dumps(Label.make("r", "pass").as_json()))["verdict"] == "pass"
