"""``query_table`` on a column of dates: the day, month or year a model writes, in any common form."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from agent_core.settings import Settings
from agent_core.tools.builtins import build_default_registry
from agent_core.tools.documents.table_dates import Period, column_dates, compare, period

LOG = (
    "date,car,station,litres\n"
    "2024-01-06,Focus,Tesco,42.18\n2024-01-13,Yaris,Shell,30.5\n2024-02-10,Yaris,Tesco,31\n"
    "2024-02-20,Focus,Shell,40\n2024-03-14,Yaris,BP,29.25\n2024-04-02,Focus,BP,41\n"
)


@pytest.fixture
def query(tmp_path: Path):  # type: ignore[no-untyped-def]
    settings = Settings(data_dir=tmp_path)
    settings.workspace_dir.mkdir(parents=True)
    (settings.workspace_dir / "fuel.csv").write_text(LOG, encoding="utf-8")
    func = build_default_registry(settings).get("query_table").func  # type: ignore[union-attr]
    return lambda *where, **kw: json.loads(func("fuel.csv", where=list(where), **kw))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2024-03-14", Period(2024, 3, 14)),
        ("2024/3/14", Period(2024, 3, 14)),
        ("2024-03-14 09:30", None),  # a time of day is not dropped unsaid
        (2024, Period(2024)),
        (2024.5, None),
        ("0000-02", None),
        ("2024-02", Period(2024, 2)),
        ("14 march", Period(None, 3, 14)),
        ("March 14th, 2024", Period(2024, 3, 14)),
        ("Sept 9", Period(None, 9, 9)),
        ("April", Period(None, 4)),
        ("April 2024", Period(2024, 4)),
        ("3월 14일", Period(None, 3, 14)),
        ("2024년 4월", Period(2024, 4)),
        ("2024", Period(2024)),
        ("2024-04-31", Period(2024, 4, 30, past_end=True)),  # a range's bound "up to the 31st"
        ("14일", None),
        ("2024-13", None),
        ("last week", None),
        ("Tesco", None),
    ],
)
def test_a_value_names_a_day_a_month_or_a_year(text: object, expected: Period | None) -> None:
    assert period(text) == expected


def test_a_column_is_dates_only_when_every_filled_cell_is_one_and_its_form_is_clear() -> None:
    uk = column_dates(pd.Series(["14/03/2024", "01/02/2024", ""]))
    assert uk is not None and uk.tolist() == [20240314, 20240201, pd.NA]
    us = column_dates(pd.Series(["03/14/2024", "01/02/2024"]))
    assert us is not None and us.tolist() == [20240314, 20240102]
    mixed = column_dates(pd.Series(["1600-01-01 09:30", "14 Mar 2024", "2024년 3월 15일", "2024-03-16T18:00Z"]))
    assert mixed is not None and mixed.tolist() == [16000101, 20240314, 20240315, 20240316]
    assert column_dates(pd.Series(["01/03/2024", "01/02/2024"])) is None  # day or month first: unknown
    assert column_dates(pd.Series(["2024-01-06", "soon"])) is None
    assert column_dates(pd.Series(["2024-02-30"])) is None  # no such day in a cell
    assert column_dates(pd.Series(["Focus", "Yaris"])) is None


def test_a_day_or_a_month_as_a_model_writes_it_matches_the_rows_of_that_date(query) -> None:  # type: ignore[no-untyped-def]
    day = query({"column": "date", "op": "=", "value": "14 march"}, aggregate="sum", column="litres")
    assert day == {"table": "fuel.csv", "where": "date = 14 March (any year)", "sum of litres": 29.25, "rows": 1}
    month = query(
        {"column": "date", "op": "contains", "value": "2월"}, {"column": "station", "op": "=", "value": "shell"}
    )
    assert month == [{"date": "2024-02-20", "car": "Focus", "station": "Shell", "litres": 40}]
    assert query({"column": "date", "op": "=", "value": "2024-01-06"})[0]["litres"] == 42.18


def test_dates_compare_in_time_and_a_period_without_a_year_within_the_one_year_of_the_column(query) -> None:  # type: ignore[no-untyped-def]
    span = query(
        {"column": "date", "op": ">=", "value": "1월 13일"},
        {"column": "date", "op": "<=", "value": "2024-02-31"},
        {"column": "car", "op": "=", "value": "Yaris"},
        aggregate="count",
    )
    assert span["count"] == 2 and span["where"].startswith("date >= 13 January (any year) and date <= 2024-02-29")
    assert query({"column": "date", "op": ">", "value": "February 2024"}, aggregate="count")["count"] == 2
    assert query({"column": "date", "op": "<", "value": "2024"}, aggregate="count")["count"] == 0
    assert query({"column": "date", "op": "!=", "value": "January"}, aggregate="count")["count"] == 4


def test_a_day_past_its_months_end_bounds_a_range_and_is_no_day_to_match() -> None:
    keys = pd.Series([20240430, 20240501], dtype="Int64")
    past = period("2024-04-31")
    assert past is not None
    assert compare(keys, "<", past).tolist() == [True, False]
    assert compare(keys, "<=", past).tolist() == [True, False]
    assert compare(keys, ">", past).tolist() == [False, True]
    assert compare(keys, ">=", past).tolist() == [False, True]
    with pytest.raises(ValueError, match="no such day: April 2024 ends on the 30th"):
        compare(keys, "=", past)


def test_a_period_of_any_year_orders_a_column_of_one_year_only() -> None:
    keys = pd.Series([20231220, 20240105, pd.NA], dtype="Int64")
    march = period("14 march")
    assert march is not None and compare(keys, "=", march).tolist() == [False, False, False]
    assert compare(keys, "!=", march).tolist() == [True, True, True]  # an empty cell is no 14 March
    with pytest.raises(ValueError, match="the dates run from 2023 to 2024: give 14 March \\(any year\\) a year"):
        compare(keys, ">", march)


def test_a_date_no_row_has_or_no_date_at_all_says_what_the_column_holds(query) -> None:  # type: ignore[no-untyped-def]
    wrong_year = query({"column": "date", "op": "=", "value": "2023-01-13"})
    assert wrong_year["count"] == 0 and wrong_year["note"].startswith(
        "no row matched; date holds: 2024-01-06, 2024-01-13"
    )
    with pytest.raises(ValueError, match="date holds dates; 'last week' is none: write a day"):
        query({"column": "date", "op": ">", "value": "last week"})
