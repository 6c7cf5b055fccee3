"""Reliability: tools that misbehave, and hostile input to the built-in tools.

Issue 7, cases 4, 5 and 6. Tools that hang, raise (anything, even SystemExit), return huge,
binary or non-string output: the run goes on, the error is recorded (bounded), the output is
truncated. The calculator and read_file, called the way a model calls them (through the
dispatcher), refuse hostile input quickly with a clear ``ERROR: …``; property-based fuzzing
checks the dispatcher never raises, never runs long, and read_file never returns a byte from
outside the workspace. The function-level cases live in tests/test_builtin_tools.py; these
extend them to the dispatcher and the loop.
"""

from __future__ import annotations

import functools
import json
import math
import os
import stat
import threading
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hyp_settings
from hypothesis import strategies as st

from agent_core.context import ToolCallRequest
from agent_core.errors import TransientToolError
from agent_core.providers.scripted import ScriptedProvider
from agent_core.records.files import load_record
from agent_core.run.dispatcher import Dispatcher
from agent_core.run.loop import run_to_end
from agent_core.settings import Settings
from agent_core.tools.builtins import build_default_registry
from agent_core.tools.registry import ToolRegistry
from tests.record_schema import assert_valid_record

HUGE = 5_000_000


# --------------------------------------------------------------------------------- case 4
class _Unprintable:
    def __str__(self) -> str:
        raise RuntimeError("cannot print me")

    __repr__ = __str__


class _BadMessage(Exception):
    def __str__(self) -> str:
        raise RuntimeError("the message itself fails")


@pytest.fixture
def release() -> Any:
    event = threading.Event()
    yield event
    event.set()  # let the hung tool threads finish


def misbehaving_registry(release: threading.Event) -> ToolRegistry:
    registry = ToolRegistry()

    @registry.tool(timeout=0.2)
    def hang(x: str) -> str:
        """Never returns in time."""
        release.wait(30)
        return "too late"

    @registry.tool
    def raise_value(x: str) -> str:
        """Raises ValueError."""
        raise ValueError(f"bad input {x}")

    @registry.tool
    def raise_key(x: str) -> str:
        """Raises a KeyError (a bug in the tool)."""
        return {}[x]  # type: ignore[return-value]

    @registry.tool
    def raise_transient(x: str) -> str:
        """Always fails transiently."""
        raise TransientToolError("backend busy")

    @registry.tool
    def raise_exit(x: str) -> str:
        """Calls sys.exit (as some libraries do on error)."""
        raise SystemExit(3)

    @registry.tool
    def raise_interrupt(x: str) -> str:
        """Raises KeyboardInterrupt from the tool's own code."""
        raise KeyboardInterrupt

    @registry.tool
    def raise_huge(x: str) -> str:
        """Raises with a 5 MB message."""
        raise ValueError("E" * HUGE)

    @registry.tool
    def raise_unprintable(x: str) -> str:
        """Raises an exception whose message cannot be made."""
        raise _BadMessage()

    @registry.tool
    def huge_text(x: str) -> str:
        """Returns 5 MB of text."""
        return "x" * HUGE

    @registry.tool
    def huge_list(x: str) -> list[int]:
        """Returns a million numbers."""
        return list(range(1_000_000))

    @registry.tool
    def binary(x: str) -> bytes:
        """Returns PNG bytes."""
        return b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 100

    @registry.tool
    def odd_values(x: str) -> Any:
        """Returns values JSON cannot hold as such."""
        loop: list[Any] = [1]
        loop.append(loop)
        return {
            "set": {3, 1, 2},
            "when": datetime(2026, 1, 1, tzinfo=timezone.utc),
            "nan": math.nan,
            "inf": math.inf,
            "loop": loop,
            "obj": object(),
            "bytes": b"\xff",
        }

    @registry.tool
    def unprintable(x: str) -> Any:
        """Returns an object that cannot be turned into text."""
        return _Unprintable()

    @registry.tool
    def control_chars(x: str) -> str:
        """Returns NULs, escapes, a lone surrogate and RTL overrides."""
        return "a\x00b\x1b[31mred\x1b[0m \ud800 \u202egnp.exe \udcff end"

    @registry.tool
    def nothing(x: str) -> None:
        """Returns None."""
        return None

    @registry.tool
    def fine(x: str) -> str:
        """Works."""
        return f"ok {x}"

    return registry


MISBEHAVING = [
    "hang",
    "raise_value",
    "raise_key",
    "raise_transient",
    "raise_exit",
    "raise_interrupt",
    "raise_huge",
    "raise_unprintable",
    "huge_text",
    "huge_list",
    "binary",
    "odd_values",
    "unprintable",
    "control_chars",
    "nothing",
]


def test_misbehaving_tools_never_stop_the_run(settings: Settings, release: threading.Event) -> None:
    limits = settings.replace(max_tool_output_chars=4000, retry_delays=(0.0, 0.0), max_steps=30)
    turns = [
        {"tool_calls": [{"name": name, "arguments": {"x": "a"}, "call_id": f"c_{name}"}]} for name in MISBEHAVING
    ] + [{"tool_calls": [{"name": "fine", "arguments": {"x": "after"}, "call_id": "c_fine"}]}, {"text": "survived"}]
    started = time.perf_counter()
    record = run_to_end("g", provider=ScriptedProvider(turns), registry=misbehaving_registry(release), settings=limits)
    elapsed = time.perf_counter() - started
    assert record["status"] == "completed" and record["answer"] == "survived"
    assert elapsed < 15
    assert_valid_record(record)
    on_disk = load_record(limits.runs_dir / f"{record['run_id']}.json")
    assert on_disk == record
    calls = {c["tool"]: c for c in record["tool_calls"]}
    assert list(calls) == [*MISBEHAVING, "fine"]

    def failed(name: str, category: str, text: str) -> None:
        call = calls[name]
        assert call["success"] is False, name
        assert call["error_category"] == category, (name, call["error_category"])
        assert call["output"].startswith("ERROR: "), name
        assert text in call["output"], (name, call["output"][:300])

    failed("hang", "timeout", "timed out after 0.2 s")
    failed("raise_value", "non_transient", "ValueError: bad input a")
    failed("raise_key", "non_transient", "KeyError")
    failed("raise_transient", "transient", "backend busy")
    assert len(calls["raise_transient"]["attempts"]) == 3  # 1 + 2 retries
    failed("raise_exit", "non_transient", "SystemExit")
    failed("raise_interrupt", "non_transient", "KeyboardInterrupt")
    failed("raise_huge", "non_transient", "ValueError: EEEE")
    failed("raise_unprintable", "non_transient", "_BadMessage")
    failed("unprintable", "non_transient", "ERROR")
    # Errors are bounded like outputs: a 5 MB message does not make a 10 MB record.
    for call in record["tool_calls"]:
        assert len(call["output"]) <= 4000 + len("\n[TRUNCATED]")
        assert len(call["error"] or "") <= 4000 + len("\n[TRUNCATED]")
        assert all(len(a.get("error") or "") <= 4000 + len("\n[TRUNCATED]") for a in call["attempts"])
    assert (limits.runs_dir / f"{record['run_id']}.json").stat().st_size < 500_000

    for name in ("huge_text", "huge_list"):
        assert calls[name]["success"] and calls[name]["truncated"]
        assert calls[name]["output"].endswith("\n[TRUNCATED]") and len(calls[name]["output"]) == 4000 + 12
    assert calls["binary"]["output"].startswith("<") and "binary output, not shown" in calls["binary"]["output"]
    assert calls["odd_values"]["success"] and all(k in calls["odd_values"]["output"] for k in ("set", "when", "loop"))
    assert calls["nothing"]["success"] and calls["nothing"]["output"] == ""
    control = calls["control_chars"]
    assert control["success"] and "\ud800" not in control["output"] and "red" in control["output"]
    assert calls["fine"]["success"] and calls["fine"]["output"] == "ok after"
    # Every call's output went back to the model, in order.
    assert len(record["context_blocks"]) == len(MISBEHAVING) + 1


def test_a_non_utf8_goal_from_the_command_line_is_saved(settings: Settings) -> None:
    """Bytes that are not UTF-8 in argv arrive as lone surrogates; the record must still be written."""
    goal = "caf\udce9 2+2"
    record = run_to_end(
        goal, provider=ScriptedProvider([{"text": "fine \udcff"}]), registry=ToolRegistry(), settings=settings
    )
    assert record["status"] == "completed"
    raw = (settings.runs_dir / f"{record['run_id']}.json").read_bytes()
    raw.decode("utf-8")  # valid UTF-8 on disk
    assert_valid_record(json.loads(raw))


# --------------------------------------------------------------------------------- case 5
_registries: dict[Path, ToolRegistry] = {}


def registry_for(settings: Settings) -> ToolRegistry:
    """One registry per data folder (building one per fuzz example would dominate the time)."""
    if settings.data_dir not in _registries:
        _registries.clear()
        _registries[settings.data_dir] = build_default_registry(settings)
    return _registries[settings.data_dir]


@pytest.fixture
def dispatcher(settings: Settings) -> Dispatcher:
    return Dispatcher(build_default_registry(settings), settings)


def dispatch(d: Dispatcher, name: str, arguments: Any) -> dict[str, Any]:
    return d.dispatch(ToolCallRequest(call_id=f"c{time.perf_counter_ns()}", name=name, arguments=arguments))


CALCULATOR_REFUSALS = [
    ("9**9**9**9", "exponent"),
    ("(" * 1000 + "1" + ")" * 1000, "nested too deeply"),
    ("1+" * 150_000 + "1", "too long"),  # 300 KB
    ("x" * 300_000, "too long"),
    ("__import__('os').system('id')", "only numbers"),
    ("open('/etc/passwd').read()", "only numbers"),
    ("pi * 2", "names"),
    ("(1).__class__.__bases__", "attributes"),
    ("abs(-1)", "function calls"),
    ("(lambda: 1)()", "only numbers"),
    ("[x for x in range(10**9)]", "only numbers"),
    ("٣ + ٤", "ASCII"),
    ("𝟗 * 2", "ASCII"),
    ("1_000_000 ** 1_000_000", "exponent"),
    ("10**1000 * 10**1000", "digits"),
    ("-(" * 90 + "9**1100" + ")" * 90, "digits"),
]


@pytest.mark.parametrize(("expression", "message"), CALCULATOR_REFUSALS, ids=[m for _, m in CALCULATOR_REFUSALS])
def test_calculator_through_the_dispatcher_refuses_quickly_and_clearly(
    dispatcher: Dispatcher, expression: str, message: str
) -> None:
    started = time.perf_counter()
    entry = dispatch(dispatcher, "calculator", json.dumps({"expression": expression}))
    assert time.perf_counter() - started < 1.0
    assert entry["success"] is False and entry["error_category"] == "non_transient"
    assert entry["output"].startswith("ERROR: calculator failed: ValueError: ")
    assert message in entry["output"]
    assert len(entry["output"]) < 1000  # a clear message, not an echo of 300 KB
    assert len(entry["attempts"]) == 1


def _expressions() -> st.SearchStrategy[str]:
    numbers = st.one_of(
        st.integers(-(10**30), 10**30).map(str),
        st.floats(allow_nan=False, allow_infinity=False).map(repr),
        st.sampled_from(["0", "0.0", "1e308", "9" * 999, "1_0", "1,000", "007", ".5", "5.", "1e-400"]),
    )
    ops = st.sampled_from(["+", "-", "*", "/", "%", "**", "//", "^", "×", "÷", "<<", "and"])

    def extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        return st.one_of(
            st.tuples(inner, ops, inner).map(lambda t: f"{t[0]} {t[1]} {t[2]}"),
            inner.map(lambda s: f"({s})"),
            inner.map(lambda s: f"-{s}"),
        )

    return st.recursive(numbers, extend, max_leaves=40)


ARGUMENTS = st.one_of(
    _expressions().map(lambda e: {"expression": e}),
    st.text(max_size=300).map(lambda e: {"expression": e}),
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
        max_leaves=10,
    ),
    st.dictionaries(st.sampled_from(["expression", "expr", "x", ""]), st.integers() | st.text(max_size=30), max_size=3),
    st.text(max_size=200),  # raw argument text: often not JSON at all
)


@hyp_settings(max_examples=200, deadline=2000, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(arguments=ARGUMENTS)
def test_fuzz_calculator_through_the_dispatcher(settings: Settings, arguments: Any) -> None:
    """Whatever the model sends, the dispatcher answers (never raises) within the bound."""
    d = Dispatcher(registry_for(settings), settings)  # a new dispatcher: no duplicate memory
    started = time.perf_counter()
    entry = dispatch(d, "calculator", arguments)
    assert time.perf_counter() - started < 1.5
    assert isinstance(entry["output"], str) and entry["output"]
    if entry["success"]:
        assert not entry["output"].startswith("ERROR")
    else:
        assert entry["output"].startswith("ERROR: ")
        assert entry["error_category"] in {"validation", "non_transient"}
        if entry["error_category"] == "non_transient":  # the calculator itself raised: only ValueError
            assert entry["output"].startswith("ERROR: calculator failed: ValueError: ")
    json.dumps(entry)


# --------------------------------------------------------------------------------- case 6
CANARY = "CANARY-7f3a9c-outside-the-workspace"


@pytest.fixture
def jail(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Settings:
    """The workspace, with traps pointing out of it, and a canary file beside it."""
    root = settings.workspace_dir
    (root / "sub").mkdir(exist_ok=True)
    (root / "sub" / "inner.md").write_text("# inner\n", encoding="utf-8")
    (settings.data_dir / "canary.txt").write_text(CANARY, encoding="utf-8")
    (settings.runs_dir / "canary.json").write_text(json.dumps({"x": CANARY}), encoding="utf-8")
    (root / "out_file").symlink_to(settings.data_dir / "canary.txt")
    (root / "out_dir").symlink_to(settings.data_dir, target_is_directory=True)
    (root / "out_rel").symlink_to("../canary.txt")
    (root / "proc_env").symlink_to("/proc/self/environ")
    (root / "proc_dir").symlink_to("/proc/self", target_is_directory=True)
    (root / "zero").symlink_to("/dev/zero")
    (root / "random").symlink_to("/dev/urandom")
    (root / "sub" / "up").symlink_to("..", target_is_directory=True)  # stays inside: allowed
    os.mkfifo(root / "pipe")
    (root / "binary.bin").write_bytes(b"\x00\x01\x02PNG" * 100)
    (root / "latin1.txt").write_bytes("caf\xe9 na\xefve".encode("latin-1"))
    with open(root / "huge.txt", "wb") as handle:
        handle.truncate(200 * 2**20)
    try:
        os.mknod(root / "zero_device", 0o600 | stat.S_IFCHR, os.makedev(1, 5))
    except (PermissionError, OSError):
        pass
    monkeypatch.setenv("RELIABILITY_CANARY", CANARY)  # so /proc/self/environ would contain it
    return settings


@functools.lru_cache(maxsize=4)
def workspace_texts(root: str) -> frozenset[str]:
    """Every text file really inside the workspace (links not followed)."""
    texts = set()
    for folder, _, names in os.walk(root):
        for name in names:
            path = Path(folder) / name
            if path.is_symlink() or not path.is_file() or path.stat().st_size > 10**6:
                continue
            try:
                texts.add(path.read_text(encoding="utf-8-sig"))
            except (UnicodeDecodeError, ValueError):
                continue
    return frozenset(texts)


READ_FILE_REFUSALS = [
    ("../canary.txt", "outside the workspace"),
    ("sub/../../canary.txt", "outside the workspace"),
    ("./../runs/canary.json", "outside the workspace"),
    ("agent_data/workspace/../canary.txt", "outside the workspace"),
    ("..\\canary.txt", "outside the workspace"),
    ("/etc/passwd", "absolute paths are not allowed"),
    ("/proc/self/environ", "absolute paths are not allowed"),
    ("//etc/passwd", "absolute paths are not allowed"),
    ("C:\\Windows\\win.ini", "absolute paths are not allowed"),
    ("out_file", "outside the workspace"),
    ("out_dir/canary.txt", "outside the workspace"),
    ("out_rel", "outside the workspace"),
    ("proc_env", "outside the workspace"),
    ("proc_dir/environ", "outside the workspace"),
    ("zero", "outside the workspace"),
    ("random", "outside the workspace"),
    ("pipe", "not a regular file"),
    ("binary.bin", "binary"),
    ("latin1.txt", "not UTF-8"),
    ("huge.txt", "too large"),
    ("sub", "folder"),
    ("a" * 10_000, "cannot"),
    ("hello\x00.txt", "NUL"),
    ("~/.ssh/id_rsa", "no file"),
    ("%2e%2e/canary.txt", "no file"),
    ("．．/canary.txt", "no file"),
]


@pytest.mark.parametrize(("path", "message"), READ_FILE_REFUSALS, ids=[p[:30] for p, _ in READ_FILE_REFUSALS])
def test_read_file_through_the_dispatcher_refuses_clearly(jail: Settings, path: str, message: str) -> None:
    d = Dispatcher(build_default_registry(jail), jail)
    started = time.perf_counter()
    entry = dispatch(d, "read_file", {"path": path})
    assert time.perf_counter() - started < 1.0
    assert entry["success"] is False and entry["output"].startswith("ERROR: read_file failed: ValueError: ")
    assert message in entry["output"], entry["output"]
    assert CANARY not in json.dumps(entry)


def test_read_file_refuses_a_device_node_inside_the_workspace(jail: Settings) -> None:
    if not (jail.workspace_dir / "zero_device").exists():
        pytest.skip("mknod is not permitted here")
    entry = dispatch(Dispatcher(build_default_registry(jail), jail), "read_file", {"path": "zero_device"})
    assert "not a regular file" in entry["output"]


def test_read_file_wrong_argument_types_are_validation_errors(jail: Settings) -> None:
    d = Dispatcher(build_default_registry(jail), jail)
    for arguments in (
        {"path": ["../canary.txt"]},
        {"path": None},
        {"path": "notes.txt", "max_chars": -1},
        {"path": "notes.txt", "max_chars": 10**12},
        {"path": "notes.txt", "mode": "w"},
        {},
    ):
        entry = dispatch(d, "read_file", arguments)
        assert entry["error_category"] == "validation", (arguments, entry["output"])


SEGMENTS = st.sampled_from(
    [
        "..",
        ".",
        "",
        "canary.txt",
        "sub",
        "up",
        "out_dir",
        "out_file",
        "out_rel",
        "proc_dir",
        "environ",
        "runs",
        "canary.json",
        "agent_data",
        "workspace",
        "notes.txt",
        "~",
        "%2e%2e",
        "．．",
        "..\\..",
        "/",
        "\\",
        "C:",
        "\x00",
        " ",
        "zero",
        "pipe",
    ]
)
PATHS = st.one_of(
    st.tuples(st.lists(SEGMENTS | st.text(max_size=8), max_size=8), st.sampled_from(["/", "\\", "//"])).map(
        lambda t: t[1].join(t[0])
    ),
    st.text(max_size=60),
)


@hyp_settings(max_examples=200, deadline=2000, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=PATHS)
def test_fuzz_read_file_never_leaves_the_workspace(jail: Settings, path: str) -> None:
    d = Dispatcher(registry_for(jail), jail)
    started = time.perf_counter()
    entry = dispatch(d, "read_file", {"path": path, "max_chars": 100_000})
    assert time.perf_counter() - started < 1.5
    assert CANARY not in entry["output"], path
    assert CANARY not in json.dumps(entry)
    if entry["success"]:  # only ever the text of a file that is really inside
        assert entry["output"] in workspace_texts(str(jail.workspace_dir)), (path, entry["output"][:200])
