"""Run records: atomic saves, tolerant reading, interrupted runs; settings, masking, trimming."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from agent_core.context import ContextBlock, select_blocks, trim_history
from agent_core.errors import RecordError
from agent_core.masking import is_secret_key, mask, mask_text, register_secret
from agent_core.records.files import RecordWriteError, effective_status, load_record, new_run_id, save_record
from agent_core.settings import Settings


def minimal_record(**changes: object) -> dict:
    record = {
        "schema_version": 1,
        "run_id": new_run_id(),
        "goal": "g",
        "provider": "offline",
        "model": "m",
        "status": "completed",
        "steps": [],
        "tool_calls": [],
        "started_at": "2026-11-30T00:00:00+00:00",
    }
    record.update(changes)
    return record


def test_save_is_atomic_and_keeps_the_old_file_on_failure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    record = minimal_record()
    path = save_record(record, tmp_path)
    assert load_record(path)["run_id"] == record["run_id"]

    def boom(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("agent_core.records.files.os.replace", boom)
    with pytest.raises(RecordWriteError, match="No space left"):
        save_record({**record, "status": "error"}, tmp_path)
    assert load_record(path)["status"] == "completed"  # the good record survived
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no temp file left behind


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"", "empty file"),
        (b"{not json", "not valid JSON"),
        (b'{"schema_version": 1, "run_id": "x", "goal": "g"', "not valid JSON"),  # truncated
        (b"[1, 2, 3]", "top level is list"),
        (b'{"hello": "world"}', "not a run record"),
        (b'{"schema_version": 1, "run_id": "x"}', "incomplete run record"),
        (b"\xff\xfe\x00garbage", "not valid JSON"),
    ],
)
def test_bad_files_raise_record_error_with_a_reason(tmp_path: Path, content: bytes, reason: str) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    with pytest.raises(RecordError, match=reason):
        load_record(path)


def test_directory_named_like_a_record(tmp_path: Path) -> None:
    (tmp_path / "x.json").mkdir()
    with pytest.raises(RecordError, match="not a regular file"):
        load_record(tmp_path / "x.json")


def test_running_record_of_a_dead_process_reads_as_interrupted(tmp_path: Path) -> None:
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    pid = int(dead.stdout)
    import os

    host = os.uname().nodename
    assert effective_status(minimal_record(status="running", owner={"pid": pid, "host": host})) == "interrupted"
    assert effective_status(minimal_record(status="running", owner={"pid": os.getpid(), "host": host})) == "running"
    assert (
        effective_status(minimal_record(status="running", owner={}, updated_at="2020-01-01T00:00:00+00:00"))
        == "interrupted"
    )
    assert effective_status(minimal_record(status="completed")) == "completed"


def test_settings_from_env_and_validation(tmp_path: Path) -> None:
    settings = Settings.from_env(
        {
            "MAX_STEPS": "4",
            "MAX_CONTEXT_BLOCKS": "2",
            "MAX_TOOL_OUTPUT_CHARS": "500",
            "RETRY_DELAYS": "0.5, 1",
            "AGENT_DATA_DIR": str(tmp_path),
            "MODEL_NAME": "gpt-x",
            "TOOL_TIMEOUT": "3",
        }
    )
    assert (settings.max_steps, settings.max_context_blocks, settings.max_tool_output_chars) == (4, 2, 500)
    assert settings.retry_delays == (0.5, 1.0) and settings.model_name == "gpt-x" and settings.tool_timeout == 3.0
    assert settings.runs_dir == tmp_path / "runs" and settings.workspace_dir == tmp_path / "workspace"
    defaults = Settings.from_env({})
    assert (defaults.max_steps, defaults.max_context_blocks, defaults.max_tool_output_chars) == (10, 8, 4000)
    assert defaults.retry_delays == (1.0, 2.0, 4.0) and defaults.data_dir == Path("agent_data")
    with pytest.raises(ValueError, match="MAX_STEPS"):
        Settings.from_env({"MAX_STEPS": "0"})
    with pytest.raises(ValueError, match="Bad setting"):
        Settings.from_env({"MAX_STEPS": "ten"})
    assert settings.replace(max_steps=None, max_context_blocks=5).max_context_blocks == 5


def test_settings_read_dotenv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".env").write_text("MAX_STEPS=7\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MAX_STEPS", raising=False)
    assert Settings.from_env().max_steps == 7
    monkeypatch.setenv("MAX_STEPS", "3")  # the environment wins over .env
    assert Settings.from_env().max_steps == 3


def test_env_example_lists_every_setting() -> None:
    text = (Path(__file__).resolve().parent.parent / ".env.example").read_text()
    for name in (
        "MODEL_NAME",
        "MAX_STEPS",
        "MAX_CONTEXT_BLOCKS",
        "MAX_TOOL_OUTPUT_CHARS",
        "RETRY_DELAYS",
        "AGENT_DATA_DIR",
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "OPENAI_COMPAT_BASE_URL",
    ):
        assert name in text


def test_masking_keys_and_key_shaped_values() -> None:
    data = {
        "api_key": "abc",
        "Authorization": "Bearer xyz",
        "password": "hunter2",
        "nested": [{"token": "t0k3n"}],
        "text": "use sk-proj-ABCDEFGHIJKLMNOPQRST now",
        "anthropic": "sk-ant-api03-ABCDEFGHIJ",
        "max_tokens": 100,
    }
    masked = mask(data)
    assert masked["api_key"] == masked["Authorization"] == masked["password"] == "****"
    assert masked["nested"][0]["token"] == "****" and masked["max_tokens"] == 100
    assert "ABCDEFGHIJ" not in json.dumps(masked)
    assert mask_text("header Authorization: Bearer abcdefghijklmnop") == "header Authorization: ****"
    # Counts and units of text are not credentials; credentials named "token" are.
    for key in (
        "input_tokens",
        "total_tokens",
        "max_tokens",
        "tokens",
        "token_count",
        "prompt_per_token_ms",
        "tokenizer",
        "token_ids",
        "author",
    ):
        assert not is_secret_key(key), key
    for key in ("token", "access_token", "X-Auth-Token", "refresh_token", "api_token", "GITHUB_TOKEN", "tokenSecret"):
        assert is_secret_key(key), key
    register_secret("my-custom-key-12345")
    assert mask_text("Incorrect API key provided: my-custom-key-12345") == "Incorrect API key provided: ****"


def test_trim_history_keeps_system_messages() -> None:
    history = [{"role": "system", "content": "s"}] + [{"role": "user", "content": str(i)} for i in range(40)]
    kept = trim_history(history, max_messages=10)
    assert len(kept) == 10 and kept[0]["role"] == "system" and kept[-1]["content"] == "39"
    assert trim_history(history[:5], max_messages=10) == history[:5]


def test_select_blocks_never_separates_calls_from_outputs() -> None:
    blocks = [ContextBlock(index=i, step=i + 1, provider="p") for i in range(5)]
    sent, trimmed = select_blocks(blocks, 3)
    assert [b.index for b in sent] == [2, 3, 4] and trimmed == [0, 1]
    assert select_blocks([], 3) == ([], [])
    with pytest.raises(ValueError):
        select_blocks(blocks, 0)
