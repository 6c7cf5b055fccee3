"""Shared test setup: no network beyond loopback, no real keys, data in a temp folder."""

from __future__ import annotations

import ipaddress
import shutil
import socket
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_core.settings import Settings

REPO = Path(__file__).resolve().parent.parent
# tests/ is a package (tests/__init__.py), so that an installed distribution that ships a
# top-level ``tests`` package (textstat does) cannot shadow ``tests.record_schema``; the helper
# modules beside the tests are also imported by their plain names (``from fake_llm_server import``).
if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
import pgserver  # noqa: E402  (beside this file)
from pgserver import PgServer  # noqa: E402

WORKSPACE = REPO / "agent_data" / "workspace"
_real_connect = socket.socket.connect


def _guarded_connect(self: socket.socket, address: object) -> object:
    host = address[0] if isinstance(address, tuple) else None
    if isinstance(host, str) and self.family in (socket.AF_INET, socket.AF_INET6):
        try:
            loopback = ipaddress.ip_address(host).is_loopback
        except ValueError:
            loopback = host == "localhost"
        if not loopback:
            raise ConnectionRefusedError(f"tests may not reach the network ({host})")
    return _real_connect(self, address)


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test: loopback only, and no provider keys from the developer's environment."""
    monkeypatch.setattr(socket.socket, "connect", _guarded_connect)
    # No early load of the local model in test apps (2 GB each); the test of it turns it back on.
    monkeypatch.setenv("LOCAL_PRELOAD", "0")
    for name in (
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
        "OPENAI_BASE_URL",
        "ANTHROPIC_BASE_URL",
    ):
        monkeypatch.delenv(name, raising=False)


def _fresh_data_dir(tmp_path: Path) -> Path:
    root = tmp_path / "agent_data"
    if WORKSPACE.is_dir():
        shutil.copytree(WORKSPACE, root / "workspace")
    else:
        (root / "workspace").mkdir(parents=True)
    (root / "runs").mkdir(parents=True, exist_ok=True)
    return root


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    """A fresh data folder with a copy of the sample workspace."""
    return _fresh_data_dir(tmp_path)


@pytest.fixture
def app_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh data folder (as :func:`data_dir`) that the app reads (``AGENT_DATA_DIR``), with no
    retry waits: what a page test needs."""
    root = _fresh_data_dir(tmp_path)
    monkeypatch.setenv("AGENT_DATA_DIR", str(root))
    monkeypatch.setenv("RETRY_DELAYS", "0,0")
    return root


@pytest.fixture
def settings(data_dir: Path) -> Settings:
    """Settings on the temp data folder with instant retries."""
    return Settings(data_dir=data_dir, retry_delays=(0.0, 0.0, 0.0), tool_timeout=5.0, request_timeout=5.0)


# -- PostgreSQL (tests marked ``postgres``): one throwaway server per test session --------------
@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    """A PostgreSQL server on 127.0.0.1 for this test session (see tests/pgserver.py)."""
    reason = pgserver.why_unavailable()
    if reason:
        pytest.skip(f"no PostgreSQL server can be started: {reason}")
    server = pgserver.start_server()
    try:
        yield server
    finally:
        pgserver.remove_server(server)


@pytest.fixture
def pg_url(pg_server: PgServer, request: pytest.FixtureRequest) -> str:
    """The URL of a new, empty database for this test (user and password included)."""
    name = "t_" + uuid.uuid4().hex[:12]
    return pg_server.create_database(name)
