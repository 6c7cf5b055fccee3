"""MCP servers as tools, with no network: the fixture server over stdio and over HTTP on 127.0.0.1,
``mcp-server-time`` from PyPI, runs that finish through an MCP tool, a replay with the server
gone, and each fault of the health card as one plain sentence within 12 s."""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_core.analysis.replay import prepare_replay
from agent_core.providers.scripted import ScriptedProvider
from agent_core.run.dispatcher import Dispatcher
from agent_core.run.prepare import prepare_run
from agent_core.settings import Settings
from agent_core.tools import mcp, mcp_config
from agent_core.tools.builtins import BUILTIN_TOOL_NAMES, build_default_registry
from agent_core.tools.catalog import cost_warning, load_catalog
from tests.mcp_kit import PYTHON, answering, close_sessions, data_dir, http_fixture, stdio_entry
from tests.record_schema import assert_valid_record

FAULT_LIMIT_S = 12.0


@pytest.fixture(autouse=True)
def fresh_hub() -> Iterator[None]:
    close_sessions()
    yield
    close_sessions()


def _health(settings: Settings, name: str, *, check: bool = True) -> tuple[mcp.Health, float]:
    config = next(s for s in mcp_config.load(settings).servers if s.name == name)
    started = time.perf_counter()
    health, _ = mcp.server_tools(config, settings, check=check)
    return health, time.perf_counter() - started


def test_the_fixture_over_stdio_lists_its_tools_and_annotations_within_5_s(tmp_path: Path) -> None:
    import mcp as _client  # noqa: F401 - the client library's import (~1 s, once per process) is not the server's time

    settings = data_dir(tmp_path, {"shop": stdio_entry()})
    health, seconds = _health(settings, "shop")
    assert health.ok, health.sentence
    assert seconds <= 5.0, f"listing over stdio took {seconds:.2f} s"
    tools = {t.name: t for t in health.tools}
    assert {"stock_level", "delete_order", "env_var", "boom", "hang"} <= set(tools)
    assert tools["stock_level"].annotations == {"readOnlyHint": True, "openWorldHint": False}
    assert tools["delete_order"].annotations == {
        "readOnlyHint": False,
        "destructiveHint": True,
        "openWorldHint": True,
    }
    assert health.protocol_version and health.tokens > 0
    assert mcp.describe_annotations(tools["stock_level"].annotations) == ["only reads"]
    assert mcp.describe_annotations(tools["delete_order"].annotations) == [
        "may change or delete",
        "reaches the internet",
    ]


def test_the_fixture_over_http_lists_within_1_s(tmp_path: Path) -> None:
    with http_fixture() as url:
        settings = data_dir(tmp_path, {"shop": {"url": url}})
        _health(settings, "shop")  # the first connection also imports the client
        close_sessions()
        health, seconds = _health(settings, "shop")
    assert health.ok, health.sentence
    assert seconds <= 1.0, f"listing over HTTP took {seconds:.2f} s"
    assert health.transport == "http"
    assert "stock_level" in {t.name for t in health.tools}


def test_mcp_server_time_from_pypi(tmp_path: Path) -> None:
    settings = data_dir(
        tmp_path, {"time": {"command": PYTHON, "args": ["-m", "mcp_server_time", "--local-timezone", "UTC"]}}
    )
    health, _ = _health(settings, "time")
    assert health.ok, health.sentence
    tools = {t.name: t for t in health.tools}
    assert set(tools) == {"get_current_time", "convert_time"}
    for tool in tools.values():
        assert tool.annotations == {
            "readOnlyHint": True,
            "destructiveHint": False,
            "idempotentHint": True,
            "openWorldHint": False,
        }
    registry = build_default_registry(settings)
    entry = Dispatcher(registry, settings).call_direct("time__get_current_time", {"timezone": "Asia/Seoul"})
    assert entry["success"], entry
    assert "+09:00" in entry["output"]
    assert entry["tool_source"] == "mcp" and entry["server"] == "time"


def _scripted_run(settings: Settings, calls: list[dict[str, Any]], answer: str) -> dict[str, Any]:
    turns = [{"tool_calls": calls}, {"text": answer}]
    prepared = prepare_run("How many A-100 are in stock?", settings=settings, provider=ScriptedProvider(turns))
    return prepared.run_to_end()


def test_a_scripted_run_finishes_through_an_mcp_tool_and_the_record_says_where_it_came_from(tmp_path: Path) -> None:
    settings = data_dir(tmp_path, {"shop": stdio_entry()})
    record = _scripted_run(
        settings,
        [
            {"name": "shop__stock_level", "arguments": {"sku": "A-100"}},
            {"name": "calculator", "arguments": {"expression": "17*2"}},
        ],
        "There are 17 units of A-100 in stock.",
    )
    assert_valid_record(record)
    assert record["status"] == "completed"
    mcp_call, builtin_call = record["tool_calls"]
    assert mcp_call["success"] and "17 units" in mcp_call["output"]
    assert mcp_call["tool_source"] == "mcp"
    assert mcp_call["server"] == "shop"
    assert mcp_call["annotations"] == {"readOnlyHint": True, "openWorldHint": False}
    assert builtin_call["tool_source"] == "builtin" and "server" not in builtin_call
    assert "shop__stock_level" in record["settings"]["tools"]
    definition = next(d for d in record["tool_definitions"] if d["name"] == "shop__stock_level")
    assert definition["tool_source"] == "mcp" and definition["parameters"]["required"] == ["sku"]


def test_the_dispatcher_validates_mcp_arguments_against_the_input_schema(tmp_path: Path) -> None:
    settings = data_dir(tmp_path, {"shop": stdio_entry()})
    dispatcher = Dispatcher(build_default_registry(settings), settings)
    wrong_type = dispatcher.call_direct("shop__delete_order", {"order_id": "seven"})
    assert wrong_type["error_category"] == "validation"
    assert "order_id: expected integer, got string" in wrong_type["output"]
    missing = dispatcher.call_direct("shop__stock_level", {})
    assert "missing argument(s): sku" in missing["output"]
    first = dispatcher.call_direct("shop__stock_level", {"sku": "B-7"})
    again = dispatcher.call_direct("shop__stock_level", {"sku": "B-7"})
    assert first["success"] and again["duplicate"]


def test_two_servers_with_the_same_tool_name_both_work(tmp_path: Path) -> None:
    settings = data_dir(
        tmp_path,
        {"north": stdio_entry(FIXTURE_NAME="north"), "south": stdio_entry(FIXTURE_NAME="south")},
    )
    registry = build_default_registry(settings)
    assert {"north__stock_level", "south__stock_level"} <= set(registry.names())
    dispatcher = Dispatcher(registry, settings)
    assert "(north)" in dispatcher.call_direct("north__stock_level", {"sku": "X"})["output"]
    assert "(south)" in dispatcher.call_direct("south__stock_level", {"sku": "X"})["output"]


def test_stdio_is_off_unless_the_operator_allows_the_command(tmp_path: Path) -> None:
    settings = data_dir(tmp_path, {"shop": stdio_entry()}, mcp_stdio_commands=())
    health, _ = _health(settings, "shop")
    assert not health.ok
    assert health.sentence.startswith("Local commands are off")
    settings = data_dir(tmp_path, {"shop": {"command": "npx", "args": ["some-server"]}}, mcp_stdio_commands=("uvx",))
    health, _ = _health(settings, "shop")
    assert "'npx' is not allowed here" in health.sentence


def test_the_child_gets_only_the_environment_it_is_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-parent-secret-000000000000")
    monkeypatch.setenv("SHOP_TOKEN", "token-from-dotenv-1234567")
    settings = data_dir(tmp_path, {"shop": stdio_entry(SHOP_REGION="eu", SHOP_KEY="${SHOP_TOKEN}")})
    dispatcher = Dispatcher(build_default_registry(settings), settings)
    assert dispatcher.call_direct("shop__env_var", {"name": "OPENAI_API_KEY"})["output"] == ""
    assert dispatcher.call_direct("shop__env_var", {"name": "SHOP_REGION"})["output"] == "eu"
    secret = dispatcher.call_direct("shop__env_var", {"name": "SHOP_KEY"})
    assert secret["success"] and "token-from-dotenv-1234567" not in secret["output"]  # masked in the record


def test_a_recorded_run_replays_with_the_server_stopped_and_no_live_call(tmp_path: Path) -> None:
    with http_fixture() as url:
        settings = data_dir(tmp_path, {"shop": {"url": url}})
        source = _scripted_run(settings, [{"name": "shop__stock_level", "arguments": {"sku": "A-100"}}], "17 in stock.")
        assert source["tool_calls"][0]["success"]
    close_sessions()  # the server is gone
    replay = prepare_replay(source, "source", settings=settings)
    record = replay.run_to_end()
    assert_valid_record(record)
    assert record["status"] == "completed"
    assert replay.tools.live_executions == 0
    call = record["tool_calls"][0]
    assert call["source"] == "recorded" and call["tool_source"] == "mcp" and call["server"] == "shop"
    assert call["output"] == source["tool_calls"][0]["output"]


def test_sixty_tools_show_their_token_estimate_and_the_warning(tmp_path: Path) -> None:
    settings = data_dir(tmp_path, {"reports": stdio_entry(FIXTURE_TOOLS="60")})
    catalog = load_catalog(settings, builtin_names=BUILTIN_TOOL_NAMES)
    health = catalog.health["reports"]
    assert health.ok and len(health.tools) == 65
    assert health.tokens > 3000
    warning = cost_warning(catalog.enabled())
    assert warning is not None and warning.startswith("65 tools whose definitions cost about")
    assert cost_warning(catalog.enabled()[:5]) is None


def test_a_tool_left_out_on_the_tools_page_is_not_in_runs(tmp_path: Path) -> None:
    settings = data_dir(tmp_path, {"shop": stdio_entry()})
    mcp_config.set_tool_enabled(settings, "shop", "delete_order", False)
    names = build_default_registry(settings).names()
    assert "shop__stock_level" in names and "shop__delete_order" not in names
    assert mcp_config.load(settings).servers[0].disabled_tools == ("delete_order",)


# --- Each fault: one plain sentence within 12 s -------------------------------------------------


def _fault(settings: Settings, name: str = "bad") -> tuple[str, float]:
    health, seconds = _health(settings, name)
    assert not health.ok
    assert seconds <= FAULT_LIMIT_S, f"{health.sentence!r} took {seconds:.1f} s"
    assert health.sentence.endswith((".", "?")) and "\n" not in health.sentence
    return health.sentence, seconds


def test_fault_command_not_found(tmp_path: Path) -> None:
    settings = data_dir(
        tmp_path, {"bad": {"command": "no-such-mcp-server"}}, mcp_stdio_commands=("no-such-mcp-server",)
    )
    sentence, _ = _fault(settings)
    assert (
        sentence == "The command 'no-such-mcp-server' was not found on this machine: install it or give its full path."
    )


def test_fault_no_answer_to_initialize(tmp_path: Path) -> None:
    silent = {"command": PYTHON, "args": ["-c", "import time; time.sleep(60)"], "timeout": 3}
    sentence, seconds = _fault(data_dir(tmp_path, {"bad": silent}))
    assert sentence.startswith("The server started but did not answer the MCP handshake (initialize) within 3 s")
    assert seconds < 5


def test_fault_the_server_exited(tmp_path: Path) -> None:
    crash = {
        "command": PYTHON,
        "args": ["-c", "import sys; print('config.toml: no such file', file=sys.stderr); sys.exit(3)"],
    }
    settings = data_dir(tmp_path, {"bad": crash})
    sentence, _ = _fault(settings)
    assert sentence == 'The server exited before it answered. It said: "config.toml: no such file".'
    health, _ = _health(settings, "bad", check=False)
    assert "config.toml: no such file" in health.stderr_tail


def test_fault_http_405_an_old_sse_only_server(tmp_path: Path) -> None:
    with answering(405, {"Allow": "GET"}) as base:
        sentence, _ = _fault(data_dir(tmp_path, {"bad": {"url": base + "/sse"}}))
    assert sentence.startswith("The server answered HTTP 405 (method not allowed): it may be an old SSE-only server")


def test_fault_http_401_needs_a_token(tmp_path: Path) -> None:
    with answering(401, {"WWW-Authenticate": "Bearer"}) as base:
        sentence, _ = _fault(data_dir(tmp_path, {"bad": {"url": base + "/mcp"}}))
    assert sentence.startswith("The server answered HTTP 401: it needs a token")


def test_fault_a_tool_that_raises(tmp_path: Path) -> None:
    settings = data_dir(tmp_path, {"shop": stdio_entry()})
    dispatcher = Dispatcher(build_default_registry(settings), settings)
    started = time.perf_counter()
    entry = dispatcher.call_direct("shop__boom", {})
    assert time.perf_counter() - started <= FAULT_LIMIT_S
    assert not entry["success"] and entry["error_category"] == "non_transient"
    assert entry["output"].startswith("ERROR: shop__boom failed: McpToolError: The tool reported an error: ")
    assert len(entry["attempts"]) == 1  # not retried


def test_fault_a_tool_that_never_returns(tmp_path: Path) -> None:
    build_default_registry(data_dir(tmp_path, {"shop": stdio_entry()}))  # started with time to spare
    settings = data_dir(tmp_path, {"shop": {**stdio_entry(), "timeout": 2}})  # same session, calls get 2 s
    dispatcher = Dispatcher(build_default_registry(settings), settings)
    started = time.perf_counter()
    entry = dispatcher.call_direct("shop__hang", {})
    seconds = time.perf_counter() - started
    assert seconds <= FAULT_LIMIT_S and seconds < 4
    assert entry["error_category"] == "timeout"
    assert "The MCP server 'shop' did not return hang within 2 s." in entry["output"]
    assert dispatcher.call_direct("shop__stock_level", {"sku": "Z"})["success"]  # the session goes on


def test_a_bearer_token_never_reaches_a_record(tmp_path: Path) -> None:
    token = "sekret-bearer-token-0123456789"
    with http_fixture() as url:
        settings = data_dir(tmp_path, {"shop": {"url": url, "headers": {"Authorization": f"Bearer {token}"}}})
        mcp_config.register_secret(token)
        record = _scripted_run(settings, [{"name": "shop__stock_level", "arguments": {"sku": token}}], f"token {token}")
    text = (settings.runs_dir / f"{record['run_id']}.json").read_text(encoding="utf-8")
    assert token not in text
    assert mcp_config.masked_headers({"Authorization": f"Bearer {token}"}) == {"Authorization": "Bearer ••••6789"}
    assert mcp_config.masked_headers({"Authorization": "Bearer ${SHOP_TOKEN}"}) == {
        "Authorization": "Bearer ${SHOP_TOKEN}"
    }


def test_sse_entries_and_metadata_urls_are_refused_with_a_sentence() -> None:
    with pytest.raises(mcp_config.ConfigError, match="marked SSE"):
        mcp_config.parse_server("old", {"url": "http://example.com/sse", "type": "sse"})
    with pytest.raises(mcp_config.ConfigError, match="metadata"):
        mcp_config.parse_server("meta", {"url": "http://169.254.169.254/mcp"})
    with pytest.raises(mcp_config.ConfigError, match="either a url"):
        mcp_config.parse_server("both", {"url": "http://x/mcp", "command": "python"})


def test_mcp_json_round_trips_and_keeps_unknown_keys(tmp_path: Path) -> None:
    settings = data_dir(tmp_path, {"shop": {**stdio_entry(), "alwaysAllow": ["stock_level"]}})
    (tmp_path / "mcp.json").write_text(
        json.dumps({"mcpServers": {"shop": {"command": PYTHON, "args": ["x"], "alwaysAllow": ["a"]}}, "other": 1})
    )
    mcp_config.set_tool_enabled(settings, "shop", "boom", False)
    raw = mcp_config.load(settings).raw
    assert raw["other"] == 1
    assert raw["mcpServers"]["shop"] == {
        "command": PYTHON,
        "args": ["x"],
        "alwaysAllow": ["a"],
        "disabledTools": ["boom"],
    }


def test_the_offline_demo_says_it_only_knows_the_built_in_tools(tmp_path: Path) -> None:
    settings = data_dir(tmp_path, {"shop": stdio_entry()})
    record = prepare_run("Check the stock of A-100 with the shop server", "offline", settings=settings).run_to_end()
    assert "The offline demo model only knows the built-in tools" in (record["answer"] or "")
    assert not any(c["tool"].startswith("shop__") for c in record["tool_calls"])


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX process groups")
def test_a_closed_session_leaves_no_child_process(tmp_path: Path) -> None:
    settings = data_dir(tmp_path, {"shop": stdio_entry(FIXTURE_NAME="lonely-child")})
    _health(settings, "shop")
    close_sessions()
    deadline = time.monotonic() + 8
    while time.monotonic() < deadline:
        alive = [p for p in os.listdir("/proc") if p.isdigit() and _cmdline_has(p, "lonely-child")]
        if not alive:
            return
        time.sleep(0.2)
    raise AssertionError("the fixture server is still running after its session was closed")


def _cmdline_has(pid: str, text: str) -> bool:
    try:
        return text.encode() in Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return False
