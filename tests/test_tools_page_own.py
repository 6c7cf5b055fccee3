"""The Tools page with a person's own tools (AppTest): a server's health card, its tool checkboxes
and badges, a failing server's sentence, the token warning, the declared-tool form; and the Run
page's labels for them."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from agent_core.tools import declared
from tests.mcp_kit import PYTHON, answering, close_sessions, stdio_entry

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    root = tmp_path / "agent_data"
    shutil.copytree(ROOT / "agent_data" / "workspace", root / "workspace")
    (root / "runs").mkdir()
    monkeypatch.setenv("AGENT_DATA_DIR", str(root))
    monkeypatch.setenv("MCP_STDIO_COMMANDS", PYTHON)
    monkeypatch.setenv("RETRY_DELAYS", "0")
    close_sessions()
    yield root
    close_sessions()


def _servers(root: Path, servers: dict[str, object]) -> None:
    (root / "mcp.json").write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")


def _page(name: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    at.switch_page(name)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _plain(text: object) -> str:
    """Escaped Markdown as the words it shows."""
    return str(text).replace("\\", "")


def _markdown(at: AppTest) -> str:
    return _plain("\n".join(str(m.value) for m in [*at.markdown, *at.caption]))


def test_a_server_card_shows_its_health_tools_and_badges_and_a_tool_can_be_left_out(data: Path) -> None:
    _servers(data, {"shop": stdio_entry()})
    at = _page("pages/tools.py")
    assert any("Connected: 5 tools." in _plain(s.value) for s in at.success)
    text = _markdown(at)
    assert "protocol 2026" in text and "tokens of definitions" in text
    assert ":green-badge[only reads]" in text and ":orange-badge[may change or delete]" in text
    box = at.checkbox(key="tools_pick_shop_delete_order")
    assert box.value is True
    box.uncheck().run()
    assert not at.exception
    saved = json.loads((data / "mcp.json").read_text())
    assert saved["mcpServers"]["shop"]["disabledTools"] == ["delete_order"]
    assert "shop__delete_order" not in at.selectbox(key="tools_pick").options
    assert "shop__stock_level" in at.selectbox(key="tools_pick").options


def test_a_failing_server_shows_one_sentence_and_the_add_form_tests_a_new_one(data: Path) -> None:
    _servers(data, {"gone": {"command": PYTHON, "args": ["-c", "import sys; sys.exit(1)"]}})
    at = _page("pages/tools.py")
    assert any(_plain(e.value).startswith("The server exited before it answered") for e in at.error)
    with answering(401) as base:
        at.text_input(key="tools_new_name").input("needs_token")
        at.text_input(key="tools_new_url").input(base + "/mcp")
        at.text_input(key="tools_new_token").input("${NOT_SET_ANYWHERE}")
        next(b for b in at.button if b.label == "Add and test").click().run()
    assert not at.exception, [e.value for e in at.exception]
    errors = [_plain(e.value) for e in at.error]
    assert any("The variable NOT_SET_ANYWHERE is not set" in e for e in errors), errors
    saved = json.loads((data / "mcp.json").read_text())
    assert saved["mcpServers"]["needs_token"]["headers"] == {"Authorization": "Bearer ${NOT_SET_ANYWHERE}"}


def test_sixty_tools_warn_about_their_cost(data: Path) -> None:
    _servers(data, {"reports": stdio_entry(FIXTURE_TOOLS="60")})
    at = _page("pages/tools.py")
    assert any("tools whose definitions cost about" in _plain(w.value) for w in at.warning)
    run = _page("pages/run.py")
    assert any("tools whose definitions cost about" in _plain(w.value) for w in run.warning)
    options = run.multiselect(key="run_tools").options
    assert "reports__report_07 (MCP: reports)" in options


def test_the_declared_tool_form_saves_a_mock_tool(data: Path) -> None:
    at = _page("pages/tools.py")
    key = "tools_decl_(a new tool)"
    at.text_input(key=f"{key}_name").input("order_status")
    at.text_input(key=f"{key}_description").input("The status of an order, by its number.")
    at.text_area(key=f"{key}_parameters").input("type: object\nproperties:\n  order: {type: string}\nrequired: [order]")
    at.text_area(key=f"{key}_result").input("Order {{order}} ships tomorrow.")
    next(b for b in at.button if b.label == "Save the tool").click().run()
    assert not at.exception, [e.value for e in at.exception]
    [item] = declared.load_all(_settings(data))[0]
    assert item.spec["result"] == "Order {{order}} ships tomorrow."
    assert "order_status" in at.selectbox(key="tools_pick").options


def _settings(root: Path):  # type: ignore[no-untyped-def]
    from agent_core.settings import Settings

    return Settings(data_dir=root)
