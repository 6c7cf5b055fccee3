"""What a tool's data covers (agent_core/tools/scope.py), and the tools a local step leaves out
because their data holds none of the request's words (agent_core/providers/local/steps.py).

Generic: each tool declares its own scope from its own data (the workspace's documents and tables,
a simulated service's cities and pages); no tool is known by name here but to read its scope."""

from __future__ import annotations

import logging
from collections.abc import Collection
from pathlib import Path

import pytest

from agent_core.providers.local.prompt import OFFERED_NOTE, build_messages
from agent_core.providers.local.steps import NOTHING_HELD, out_of_scope, scope_notes
from agent_core.settings import Settings
from agent_core.tools.builtins import build_default_registry
from agent_core.tools.registry import Tool, make_tool
from agent_core.tools.scope import Body, Scope, fixed_scope, request_words


def _covers(scope: Scope, request: str) -> bool:
    return scope.covers(request_words(request))


def test_a_request_is_judged_on_its_words_not_its_figures_or_stop_words() -> None:
    assert request_words("What's the stock level of SKU-42?") == {"stock", "level", "sku"}
    assert request_words("What is 15% of 240?") == set()  # nothing to judge: every tool stays
    assert request_words("5월 관리비 납부 마감") == {"관리비", "납부", "마감"}
    # A long Korean word brings its pieces (a compound meets its parts); a short one does not.
    assert request_words("헬스장이용료") >= {"헬스장이용료", "헬스", "이용", "용료"}
    assert request_words("솔바람 캠핑장 체크아웃") == {"솔바람", "캠핑장", "체크아웃", "체크", "크아", "아웃"}


def test_a_fixed_scope_covers_a_request_that_shares_one_of_its_words() -> None:
    weather = fixed_scope("weather 날씨", "Seoul 서울 sunny 맑음", "Tokyo 도쿄 cloudy 흐림", "Incheon 인천 windy 바람")
    assert _covers(weather, "Will it be sunny in Tokyo tomorrow?")
    assert _covers(weather, "도쿄 날씨 어때요?")
    assert not _covers(weather, "What time does the clinic close on Wednesdays?")
    # The data is in both scripts, so a Korean request is judged too.
    assert not _covers(weather, "5월 관리비 납부 마감 언제예요?")
    assert not _covers(weather, "솔바람 캠핑장 체크아웃 몇 시까지예요?")  # "바람" is in "솔바람", not asked
    assert _covers(weather, "What is 15% of 240?")  # no word to judge by


def test_a_request_in_a_script_the_data_is_not_written_in_cannot_be_ruled_out() -> None:
    clinic = fixed_scope("Opening hours: Wednesday 08:00 – 20:00. Panoramic X-ray €65.")
    assert _covers(clinic, "치과 수요일에 몇 시에 닫아요?")  # Korean about an English document
    assert _covers(clinic, "panoramic x-ray 비용이 얼마예요?")
    assert not _covers(clinic, "Is the boardroom free on Friday?")


def test_a_scope_of_several_bodies_covers_when_one_does() -> None:
    def bodies(words: Collection[str]) -> list[Body]:
        return [
            Body("notice.md", set(words) & {"parking"}, {"latin"}),
            Body("안내.md", set(words) & {"주차"}, {"hangul"}),
        ]

    scope = Scope(bodies=bodies)
    assert _covers(scope, "visitor parking rules")
    assert _covers(scope, "방문 차량 주차")
    assert _covers(scope, "관리비 언제 내요?")  # the English body cannot judge a Korean request
    assert _covers(scope, "opening hours")  # nor the Korean body an English one
    assert not _covers(scope, "opening hours 언제예요?")  # each body judges its part: neither holds it
    assert not Scope(bodies=lambda words: []).covers({"anything"})  # no data: about nothing


def _workspace(tmp_path: Path, files: dict[str, str]) -> Settings:
    workspace = tmp_path / "workspace"
    workspace.mkdir(parents=True)
    for name, text in files.items():
        (workspace / name).write_text(text, encoding="utf-8")
    return Settings(data_dir=tmp_path)


def _left_out(settings: Settings, goal: str) -> list[str]:
    return list(out_of_scope(goal, list(build_default_registry(settings))))


def test_search_documents_covers_what_one_document_holds_or_cannot_judge(tmp_path: Path) -> None:
    settings = _workspace(
        tmp_path,
        {
            "clinic.md": "# Opening hours\n\nWednesday: 08:00 to 20:00. Cleaning costs €60.\n",
            "notice.md": "# 주차 안내\n\n방문 차량은 하루 4시간까지 무료입니다.\n",
        },
    )
    assert "search_documents" not in _left_out(settings, "When does the clinic close?")
    assert "search_documents" not in _left_out(settings, "방문 차량 주차 몇 시간 무료예요?")
    # No Korean word of the notice, but the English clinic document cannot judge a Korean request.
    assert "search_documents" not in _left_out(settings, "치과 스케일링 얼마예요?")


def test_search_documents_is_left_out_when_every_document_could_judge_and_none_holds_a_word(tmp_path: Path) -> None:
    settings = _workspace(tmp_path, {"clinic.md": "# Opening hours\n\nWednesday: 08:00 to 20:00.\n"})
    assert {"search_documents", "read_file"} <= set(_left_out(settings, "Convert five miles to kilometres"))
    # A file's name is part of what it covers: "read clinic.md" asks for it.
    assert not {"search_documents", "read_file"} & set(_left_out(settings, "Summarise the clinic file"))
    empty = _workspace(tmp_path / "empty", {})
    assert "search_documents" in _left_out(empty, "When does the clinic close?")  # nothing to search


def test_query_table_covers_its_names_columns_and_cells(tmp_path: Path) -> None:
    settings = _workspace(
        tmp_path,
        {"parts.csv": "sku,name,stock\nVP-1,Pico W board,21\nVP-2,10k ohm resistor,5000\n"},
    )
    assert "query_table" not in _left_out(settings, "how many pico w boards have we got?")
    assert "query_table" not in _left_out(settings, "which part has the lowest stock?")  # a column
    assert "query_table" in _left_out(settings, "what time does the clinic close?")


def test_the_simulated_services_cover_their_own_data(settings: Settings) -> None:
    assert "get_weather" not in _left_out(settings, "부산 날씨 어때요?")
    assert "get_weather" in _left_out(settings, "5월 관리비 납부 마감 언제예요?")
    assert "search_web" not in _left_out(settings, "Search the web for the python tutorial")
    assert "search_web" in _left_out(settings, "What is the refund policy?")


def test_a_tool_without_a_scope_is_never_left_out_and_a_broken_scope_counts_as_covering(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Earlier tests in a session may have disabled existing loggers, raised a parent's level or cut
    # its propagation: the warning is read at its own logger.
    logger = logging.getLogger("agent_core.providers.local.steps")
    monkeypatch.setattr(logger, "disabled", False)
    monkeypatch.setattr(logger, "level", logging.WARNING)
    monkeypatch.setattr(logger, "handlers", [caplog.handler])

    def func(text: str) -> str:
        return text

    def broken(words: Collection[str]) -> list[Body]:
        raise RuntimeError("index locked")

    free = make_tool(func, name="stock_level", description="Stock of a product.")
    narrow = make_tool(func, name="narrow", description="Narrow.", scope=fixed_scope("apples pears"))
    flaky = make_tool(func, name="flaky", description="Flaky.", scope=Scope(bodies=broken))
    left = out_of_scope("What's the stock level of SKU-42?", [free, narrow, flaky])
    assert left == {"narrow": NOTHING_HELD}
    assert "flaky" in caplog.text and "index locked" in caplog.text
    assert scope_notes(left) == ["not offered: narrow (none of the request's words is in their data)"]


def test_the_goal_turn_names_the_tools_offered_when_fewer_than_the_system_prompt_lists() -> None:
    def func(text: str) -> str:
        return text

    tools: list[Tool] = [make_tool(func, name=n, description=n) for n in ("alpha", "beta", "gamma")]
    whole = build_messages("sys", "goal?", [], tools, tools)
    assert whole == build_messages("sys", "goal?", [], tools) and whole[1]["content"] == "goal?"
    some = build_messages("sys", "goal?", [], tools, tools[:2])
    assert some[0] == whole[0]  # the system prompt (and its cache) is the same
    assert some[1]["content"] == "goal?" + OFFERED_NOTE.format(names="alpha, beta")
