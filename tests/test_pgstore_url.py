"""Store URLs that would leak part of a password into messages are refused up front."""

from __future__ import annotations

import pytest

pytest.importorskip("psycopg")
from agent_core.pgstore.connection import StoreURLError, address, safe_url  # noqa: E402


def test_an_unencoded_at_sign_in_the_password_is_refused_without_showing_it() -> None:
    with pytest.raises(StoreURLError) as refused:
        address("postgresql://ana:p@ss@db.example:5432/runs")
    assert "ss@db" not in str(refused.value) and "%40" in str(refused.value)
    assert "ss" not in safe_url("postgresql://ana:p@ss@db.example:5432/runs")


def test_an_encoded_at_sign_is_fine() -> None:
    where = address("postgresql://ana:p%40ss@db.example:5432/runs")
    assert (where.host, where.port, where.dbname) == ("db.example", "5432", "runs")
