"""Cold start of the local model: the prompt cache on disk, one load per process, the
early load. All offline and without the model: the cache file layer is plain file work, and the
engine runs on a fake ``xllamacpp`` whose embedded server (a real loopback HTTP server) saves and
restores slot files the way llama.cpp's ``/slots/0?action=save|restore`` does.
"""

from __future__ import annotations

import importlib.machinery
import json
import sys
import threading
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_core.providers import local
from agent_core.providers.base import ModelRequest
from agent_core.providers.local import engine as engine_module
from agent_core.providers.local import preload, prompt_cache
from agent_core.providers.local.prompt_cache import PromptCache, cache_key, remembered_sha256
from agent_core.settings import Settings
from agent_core.tools.builtins import build_default_registry
from agent_core.tools.instructions import build_instructions
from tests.loopback import QuietHandler, serve

KEY = "0123456789abcdef0123456789abcdef"


def published(directory: Path, content: bytes = b"slot state " * 1000, key: str = KEY) -> PromptCache:
    cache = PromptCache(directory)
    temp = cache.temp_name(key)
    (directory / temp).write_bytes(content)
    cache.publish(key, temp, n_tokens=490)
    return cache


# ---------------------------------------------------------------------------------------------
# The cache files


def test_a_published_state_is_found_with_its_token_count(tmp_path: Path) -> None:
    cache = published(tmp_path)
    found = cache.find(KEY)
    assert found is not None and found.n_tokens == 490
    assert (tmp_path / found.filename).read_bytes() == b"slot state " * 1000
    assert not list(tmp_path.glob("*.tmp"))  # the temporary name is gone
    assert cache.find("f" * 32) is None  # another key: nothing


@pytest.mark.parametrize(
    "damage",
    ["truncated", "flipped byte", "slot file missing", "index not json", "index of another key", "path in index"],
)
def test_a_damaged_cache_is_ignored_never_raised(tmp_path: Path, damage: str) -> None:
    cache = published(tmp_path)
    found = cache.find(KEY)
    assert found is not None
    slot, index = tmp_path / found.filename, tmp_path / f"{KEY}.json"
    data = slot.read_bytes()
    if damage == "truncated":
        slot.write_bytes(data[: len(data) // 2])
    elif damage == "flipped byte":
        slot.write_bytes(data[:100] + bytes([data[100] ^ 1]) + data[101:])
    elif damage == "slot file missing":
        slot.unlink()
    elif damage == "index not json":
        index.write_text('{"format": 1, "key": "', encoding="utf-8")
    elif damage == "index of another key":
        index.write_text(index.read_text(encoding="utf-8").replace(KEY, "f" * 32), encoding="utf-8")
    elif damage == "path in index":
        entry = json.loads(index.read_text(encoding="utf-8"))
        entry["file"] = "../" + entry["file"]
        index.write_text(json.dumps(entry), encoding="utf-8")
    assert cache.find(KEY) is None
    published(tmp_path, b"rebuilt state " * 100)  # rebuilt over the damage
    rebuilt = cache.find(KEY)
    assert rebuilt is not None and (tmp_path / rebuilt.filename).read_bytes() == b"rebuilt state " * 100


def test_two_writers_at_once_leave_one_whole_entry(tmp_path: Path) -> None:
    contents = [bytes([n]) * 300_000 for n in range(6)]
    barrier = threading.Barrier(len(contents))

    def write(content: bytes) -> None:
        cache = PromptCache(tmp_path)
        temp = cache.temp_name(KEY)
        (tmp_path / temp).write_bytes(content)
        barrier.wait()
        cache.publish(KEY, temp, n_tokens=10)

    threads = [threading.Thread(target=write, args=(c,)) for c in contents]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    found = PromptCache(tmp_path).find(KEY)
    # Whichever index was written last may name a slot file a later writer tidied away: then the
    # cache is simply missing (computed again), never a mix of two states.
    if found is not None:
        assert (tmp_path / found.filename).read_bytes() in contents
    assert not list(tmp_path.glob("*.tmp"))


def test_the_key_changes_with_everything_the_state_depends_on() -> None:
    base: dict[str, Any] = {
        "model_sha256": "a" * 64,
        "messages": [{"role": "system", "content": "tools"}],
        "tool_schemas": [{"name": "calculator", "parameters": {}}],
        "n_ctx": 8192,
        "n_batch": 64,
        "runtime_version": "2026.10.11549",
    }
    keys = {cache_key(**base)}
    for field, other in [
        ("model_sha256", "b" * 64),
        ("messages", [{"role": "system", "content": "other tools"}]),
        ("tool_schemas", [{"name": "calculator", "parameters": {"x": 1}}]),
        ("n_ctx", 4096),
        ("n_batch", 512),
        ("runtime_version", "2026.11.1"),
    ]:
        keys.add(cache_key(**{**base, field: other}))
    assert len(keys) == 7 and cache_key(**base) in keys


def test_the_model_hash_is_computed_once_and_again_when_the_file_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = tmp_path / "models" / "my.gguf"
    model.parent.mkdir()
    model.write_bytes(b"GGUF one")
    calls: list[Path] = []
    real = prompt_cache._file_sha256
    monkeypatch.setattr(prompt_cache, "_file_sha256", lambda p: calls.append(p) or real(p))
    first = remembered_sha256(model, tmp_path / "cache")
    assert remembered_sha256(model, tmp_path / "cache") == first and len(calls) == 1
    assert model.with_name("my.gguf.sha256.json").is_file()
    model.write_bytes(b"GGUF two, longer")
    assert remembered_sha256(model, tmp_path / "cache") != first and len(calls) == 2


def test_the_model_hash_is_remembered_in_the_cache_when_the_model_folder_is_read_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = tmp_path / "my.gguf"
    model.write_bytes(b"GGUF")
    real = prompt_cache._write_atomically

    def refuse_beside_the_model(path: Path, text: str) -> None:
        if path.parent == tmp_path:
            raise PermissionError(13, "Permission denied")
        real(path, text)

    monkeypatch.setattr(prompt_cache, "_write_atomically", refuse_beside_the_model)
    digest = remembered_sha256(model, tmp_path / "cache")
    assert [json.loads(p.read_text())["sha256"] for p in (tmp_path / "cache").iterdir()] == [digest]


# ---------------------------------------------------------------------------------------------
# The engine on a fake xllamacpp


class FakeLlama:
    """A fake ``xllamacpp`` module: counts loads; its server saves/restores slot files over HTTP."""

    def __init__(self) -> None:
        self.loads = 0
        self.computed = 0  # warm-ups that computed the prompt (the slot held another one)
        self.bodies: list[dict[str, Any]] = []
        self.actions: list[str] = []
        self.release = threading.Event()
        self.release.set()
        self.module = types.ModuleType("xllamacpp")
        self.module.__spec__ = importlib.machinery.ModuleSpec("xllamacpp", None)
        self.module.CommonParams = self._params  # type: ignore[attr-defined]
        self.module.Server = self._server  # type: ignore[attr-defined]

    @staticmethod
    def _params() -> Any:
        ns = types.SimpleNamespace
        return ns(model=ns(), cpuparams=ns(), cpuparams_batch=ns(), sampling=ns())

    def _server(self, params: Any) -> Any:
        self.release.wait(10)
        self.loads += 1
        return FakeServer(self, params)


class FakeServer:
    def __init__(self, fake: FakeLlama, params: Any) -> None:
        self.fake, self.params = fake, params
        self.tokens = 0  # the slot's cached prompt tokens
        self.prompt: Any = None  # the messages whose state the slot holds
        server = self

        class Slots(QuietHandler):
            def do_POST(self) -> None:
                action = self.path.rsplit("=", 1)[1]
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                ok = self.headers["Authorization"] == f"Bearer {params.api_keys[0]}"
                path = Path(params.slot_save_path + body["filename"])
                server.fake.actions.append(action)
                if ok and action == "save":
                    state = json.dumps(server.prompt).encode()
                    path.write_bytes(b"K" * 1000 + state + server.tokens.to_bytes(4, "big"))
                    reply: dict[str, Any] = {"n_saved": server.tokens}
                elif ok and action == "restore" and path.is_file():
                    data = path.read_bytes()
                    server.tokens = int.from_bytes(data[-4:], "big")
                    server.prompt = json.loads(data[1000:-4])
                    reply = {"n_restored": server.tokens}
                else:
                    self.send_response(400)
                    self.end_headers()
                    return
                self.reply(reply)

        self.http, self.listening_address = serve(Slots)

    def handle_chat_completions(self, body: dict[str, Any], callback: Any = None) -> Any:
        self.fake.bodies.append(body)
        if callback is None:  # the warm-up, or the grammar's one token after a restored prompt
            if body["messages"] != self.prompt:
                self.fake.computed += 1
            self.tokens, self.prompt = 490, body["messages"]
            return {}
        cached = self.tokens
        for piece in ('Thought: a greeting\n{"reply": ', '"ok"}'):
            callback({"choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]})
        callback(
            {
                "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
                "timings": {"cache_n": cached, "prompt_n": 30, "predicted_n": 5},
            }
        )
        return None


@pytest.fixture
def fake_llama(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLlama]:
    fake = FakeLlama()
    model = tmp_path / "model" / "fake.gguf"
    model.parent.mkdir()
    model.write_bytes(b"GGUF fake model")
    monkeypatch.setitem(sys.modules, "xllamacpp", fake.module)
    monkeypatch.setenv("LOCAL_MODEL_PATH", str(model))
    monkeypatch.setenv("OMP_WAIT_POLICY", "PASSIVE")
    monkeypatch.setattr(engine_module, "_ENGINE", None)
    monkeypatch.setattr(preload, "_CURRENT", None)
    yield fake
    engine = engine_module._ENGINE
    if engine is not None:
        engine.server.http.shutdown()


def new_process() -> None:
    """What a new process starts from: no engine in memory (the disk cache stays)."""
    if engine_module._ENGINE is not None:
        engine_module._ENGINE.server.http.shutdown()
    engine_module._ENGINE = None


def prepared(settings: Settings, *, tables_early: bool = False) -> local.LocalProvider:
    provider = local.create(model=None, base_url=None, settings=settings)
    provider.tables_early = tables_early  # the app's early load sets it
    provider.use_run("sys", list(build_default_registry(settings)))
    for _ in provider.prepare():
        pass
    return provider


def warm_ups(fake: FakeLlama) -> int:
    """How many times the system prompt was computed (not restored, not already in the slot)."""
    return fake.computed


def grammar_warm_ups(fake: FakeLlama) -> int:
    return sum(1 for b in fake.bodies if b.get("max_tokens") == 1 and b.get("grammar") == local.WARM_GRAMMAR)


def test_the_prompt_is_saved_once_then_restored_in_a_new_process(fake_llama: FakeLlama, settings: Settings) -> None:
    first = prepared(settings, tables_early=True)
    assert first.prompt_cache == "built" and warm_ups(fake_llama) == 1
    assert fake_llama.actions == ["save"]
    assert first.meta()["prompt_cache"] == "built"
    assert list((settings.data_dir / "cache" / "prompt").glob("*.slot"))

    assert grammar_warm_ups(fake_llama) == 1  # llguidance's tables: built with the prompt

    assert prepared(settings, tables_early=True).prompt_cache == "in memory"  # same process: nothing to do
    assert grammar_warm_ups(fake_llama) == 1
    new_process()
    second = prepared(settings, tables_early=True)
    assert second.prompt_cache == "restored" and warm_ups(fake_llama) == 1
    assert fake_llama.actions == ["save", "restore"] and fake_llama.loads == 2
    # The early load of a new process builds llguidance's tables after the restored prompt (one
    # token more: the slot keeps that prompt), not in the first step that needs them.
    assert grammar_warm_ups(fake_llama) == 2
    assert fake_llama.bodies[-1]["messages"] == fake_llama.bodies[0]["messages"]
    assert prepared(settings, tables_early=True).prompt_cache == "in memory" and grammar_warm_ups(fake_llama) == 2

    other_tools = local.create(model=None, base_url=None, settings=settings)
    other_tools.use_run("sys", list(build_default_registry(settings).subset(["calculator"])))
    for _ in other_tools.prepare():
        pass
    assert other_tools.prompt_cache == "built" and warm_ups(fake_llama) == 2  # another key


def test_a_cli_process_builds_no_llguidance_tables_while_preparing(fake_llama: FakeLlama, settings: Settings) -> None:
    # The CLI and evals prepare without the early load's tables_early: the first step's request
    # (its grammar is llguidance's) builds the tables, not the preparation.
    first = prepared(settings)
    assert first.prompt_cache == "built" and grammar_warm_ups(fake_llama) == 0
    assert "grammar" not in fake_llama.bodies[0]  # the prompt's warm-up itself asks for none
    new_process()
    assert prepared(settings).prompt_cache == "restored"
    assert grammar_warm_ups(fake_llama) == 0 and len(fake_llama.bodies) == 1  # nothing generated


def test_a_damaged_slot_file_is_computed_again_and_replaced(fake_llama: FakeLlama, settings: Settings) -> None:
    prepared(settings)
    (slot,) = (settings.data_dir / "cache" / "prompt").glob("*.slot")
    slot.write_bytes(slot.read_bytes()[:-3])  # truncated
    new_process()
    provider = prepared(settings)
    assert provider.prompt_cache == "built" and warm_ups(fake_llama) == 2
    assert fake_llama.actions == ["save", "save"]  # never handed the damaged file
    response = provider.complete(
        ModelRequest(instructions="sys", goal="hello", blocks=[], tools=list(build_default_registry(settings)), step=1)
    )
    assert response.text == "ok"
    new_process()
    assert prepared(settings).prompt_cache == "restored"


def test_the_first_step_sends_the_system_prompt_the_warm_up_cached(fake_llama: FakeLlama, settings: Settings) -> None:
    provider = prepared(settings)
    tools = list(build_default_registry(settings))
    provider.complete(ModelRequest(instructions="sys", goal="hello", blocks=[], tools=tools, step=1))
    # Else llama.cpp's cached prefix ends where they differ, and the rest is read in every first step.
    warm_up, step = fake_llama.bodies[0], fake_llama.bodies[-1]
    assert warm_up.get("max_tokens") == 1 and step.get("stream") is True
    assert step["messages"][0] == warm_up["messages"][0]


def test_an_unwritable_cache_never_fails_the_run(
    fake_llama: FakeLlama, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(PromptCache, "publish", lambda *a, **k: (_ for _ in ()).throw(OSError(28, "No space")))
    provider = prepared(settings)
    assert provider.prompt_cache == "computed"


def test_an_eval_of_many_goals_loads_the_model_once(
    fake_llama: FakeLlama, settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent_core.cli.main import main

    goals = [{"id": f"g{n}", "goal": f"hello number {n}", "checks": [{"status": "completed"}]} for n in range(6)]
    goal_file = tmp_path / "goals.yaml"
    goal_file.write_text(json.dumps({"name": "many", "goals": goals}), encoding="utf-8")
    monkeypatch.setenv("AGENT_DATA_DIR", str(settings.data_dir))
    assert main(["eval", str(goal_file), "--provider", "local", "-q"]) == 0
    runs = [json.loads(p.read_text(encoding="utf-8")) for p in (settings.data_dir / "runs").glob("*.json")]
    assert len(runs) == 6 and all(r["status"] == "completed" for r in runs)
    assert fake_llama.loads == 1 and warm_ups(fake_llama) == 1
    assert sum(1 for r in runs if r["provider_meta"]["loaded_now"]) == 1


def test_a_run_during_the_early_load_waits_for_it_and_shows_its_progress(
    fake_llama: FakeLlama, settings: Settings
) -> None:
    fake_llama.release.clear()  # the load hangs until released
    early = preload.start(settings)
    assert early is not None and preload.start(settings) is early and early.running
    seen: list[str] = []
    provider = local.create(model=None, base_url=None, settings=settings)
    registry = build_default_registry(settings)
    provider.use_run(build_instructions(registry), list(registry))
    waiting = provider.prepare()
    seen.append(next(waiting).message)
    seen.append(next(waiting).message)
    fake_llama.release.set()
    seen.extend(p.message for p in waiting)
    assert not early.running and early.error is None and early.summary
    assert fake_llama.loads == 1 and warm_ups(fake_llama) == 1  # one load, one warm-up
    assert all("started early" in m for m in seen[:2]) and provider.prompt_cache == "in memory"
    assert seen[-1] == "ready"  # the run view's "✅ Model ready", not the wait's last message


def test_preload_can_be_turned_off() -> None:
    assert preload.enabled({}) and preload.enabled({"LOCAL_PRELOAD": "1"})
    assert not preload.enabled({"LOCAL_PRELOAD": "0"}) and not preload.enabled({"LOCAL_PRELOAD": "off"})


def test_the_early_load_starts_only_when_allowed_and_the_local_model_is_the_default(
    fake_llama: FakeLlama, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the server's start (serve.py) and the first page both call: LOCAL_PRELOAD=0 or another
    default provider starts nothing; otherwise the one preload of the process."""
    import agent_core.providers as providers

    assert preload.start_if_default(settings, {"LOCAL_PRELOAD": "0"}) is None
    assert preload.start_if_default(settings.replace(read_only=True), {}) is None  # a viewer runs nothing
    monkeypatch.setattr(providers, "default_provider_id", lambda: "offline")
    assert preload.start_if_default(settings, {}) is None and preload.current() is None
    monkeypatch.setattr(providers, "default_provider_id", lambda: "local")
    early = preload.start_if_default(settings, {})
    assert early is not None and preload.start_if_default(settings, {}) is early
    assert early.done.wait(30) and early.error is None and fake_llama.loads == 1


def test_the_load_skips_the_memory_fit_and_the_weight_repack(fake_llama: FakeLlama, settings: Settings) -> None:
    """Both cost load time for nothing on this CPU (measured in the comments at the settings)."""
    prepared(settings)
    params = engine_module._ENGINE.server.params  # type: ignore[union-attr]
    assert params.fit_params is False and params.no_extra_bufts is True and params.warmup is False
