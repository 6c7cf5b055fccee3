"""Simulated outside services: weather, a flaky web search and its cached fallback (demos of retry
and fallback with no network).

Nothing here touches the network. ``search_web`` fails with :class:`TransientToolError` at a
configurable rate so the dispatcher's retries and the ``search_cached`` fallback can be shown;
the random source is injectable so tests are deterministic.
"""

from __future__ import annotations

import random
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from agent_core.errors import TransientToolError
from agent_core.text.lang import is_korean

TemperatureUnit = Literal["celsius", "fahrenheit"]


@dataclass(frozen=True)
class CityWeather:
    """Simulated current weather of one city."""

    english: str
    korean: str
    celsius: float
    condition_en: str
    condition_ko: str
    aliases: tuple[str, ...] = ()


CITIES: tuple[CityWeather, ...] = (
    CityWeather("Seoul", "서울", 22, "sunny", "맑음"),
    CityWeather("Busan", "부산", 24, "partly cloudy", "구름 조금", ("pusan",)),
    CityWeather("Incheon", "인천", 21, "windy", "바람"),
    CityWeather("Jeju", "제주", 25, "clear", "맑음", ("jeju city", "제주도")),
    CityWeather("Tokyo", "도쿄", 25, "cloudy", "흐림", ("동경",)),
    CityWeather("Osaka", "오사카", 27, "humid", "습함"),
    CityWeather("Beijing", "베이징", 20, "hazy", "연무", ("peking", "북경")),
    CityWeather("Singapore", "싱가포르", 31, "thunderstorms", "뇌우"),
    CityWeather("Sydney", "시드니", 14, "showers", "소나기"),
    CityWeather("New York", "뉴욕", 18, "rain", "비", ("nyc", "new york city")),
    CityWeather("San Francisco", "샌프란시스코", 16, "fog", "안개", ("sf",)),
    CityWeather("London", "런던", 15, "overcast", "흐림"),
    CityWeather("Paris", "파리", 19, "light rain", "약한 비"),
    CityWeather("Berlin", "베를린", 17, "cloudy", "흐림"),
)


def _key(name: str) -> str:
    return " ".join(re.findall(r"[^\W_]+", unicodedata.normalize("NFKC", name).casefold()))


_BY_NAME: dict[str, CityWeather] = {
    _key(name): city for city in CITIES for name in (city.english, city.korean, *city.aliases)
}


def known_cities() -> str:
    """``Seoul/서울, Busan/부산, …`` for messages and descriptions."""
    return ", ".join(f"{c.english}/{c.korean}" for c in CITIES)


def _find_city(city: str) -> CityWeather | None:
    key = _key(city.split(",")[0])  # "Seoul, KR" → "seoul"
    found = _BY_NAME.get(key)
    if found is None and key.endswith(("시", " city")):  # 서울시, Busan City
        found = _BY_NAME.get(key.removesuffix(" city").removesuffix("시").strip())
    return found


def get_weather(city: str, unit: TemperatureUnit = "celsius") -> dict[str, Any]:
    """Get the current weather of a city (simulated data; English or Korean city names).

    Args:
        city: City name, e.g. 'Seoul', '서울', 'Tokyo', 'New York'.
        unit: Temperature unit, 'celsius' (default) or 'fahrenheit'.
    """
    found = _find_city(city)
    if found is None:
        raise ValueError(f"no weather data for {city.strip()!r}; known cities: {known_cities()}")
    if unit not in ("celsius", "fahrenheit"):
        raise ValueError("unit must be 'celsius' or 'fahrenheit'")
    temperature = found.celsius if unit == "celsius" else round(found.celsius * 9 / 5 + 32, 1)
    korean = is_korean(city)
    return {
        "city": found.korean if korean else found.english,
        "temperature": temperature,
        "unit": unit,
        "condition": found.condition_ko if korean else found.condition_en,
    }


# A tiny simulated web: (title, url, snippet). Results are ranked by shared words.
_PAGES: tuple[tuple[str, str, str], ...] = (
    ("Python documentation", "https://docs.python.org/3/", "Official Python 3 documentation."),
    ("Python tutorial", "https://docs.python.org/3/tutorial/", "An introduction to Python."),
    (
        "OpenAI function calling guide",
        "https://platform.openai.com/docs/guides/function-calling",
        "Connect models to tools with function calling.",
    ),
    (
        "Anthropic tool use",
        "https://docs.anthropic.com/en/docs/build-with-claude/tool-use",
        "Claude tool use: tool_use and tool_result content blocks.",
    ),
    ("Streamlit documentation", "https://docs.streamlit.io/", "Build data apps in Python."),
    (
        "Exponential backoff and jitter",
        "https://aws.amazon.com/blogs/architecture/exponential-backoff-and-jitter/",
        "Why full jitter spreads out retries.",
    ),
    ("World weather overview", "https://weather.example.com/", "Forecasts for major cities."),
    ("Seoul travel guide", "https://travel.example.com/seoul", "Things to do in Seoul, Korea."),
)


def _web_results(query: str, limit: int = 3) -> list[dict[str, str]]:
    words = set(_key(query).split())
    scored = []
    for index, (title, url, snippet) in enumerate(_PAGES):
        overlap = len(words & set(_key(f"{title} {snippet}").split()))
        if overlap:
            scored.append((-overlap, index, title, url, snippet))
    scored.sort()
    return [{"title": t, "url": u, "snippet": s} for _, _, t, u, s in scored[:limit]]


NO_PAGE = (
    "No page matches: this simulated web holds only a few demo pages, and it does not search the user's documents."
)
"""What the simulated web says when no page matches. It used to return a made-up "Search tips"
page (search.example.com): the model searched the web again, or quoted the page ("the password is
'example'")."""


def _web_page(query: str, source: str, limit: int) -> dict[str, Any]:
    results = _web_results(query, limit)
    found: dict[str, Any] = {"query": query, "source": source, "results": results}
    if not results:
        found["note"] = NO_PAGE
    return found


def make_search_tools(
    failure_rate: float, rng: random.Random | None = None
) -> tuple[Callable[[str], dict[str, Any]], Callable[[str], dict[str, Any]]]:
    """``(search_web, search_cached)``; search_web fails transiently with ``failure_rate``."""
    if not 0 <= failure_rate <= 1:
        raise ValueError("failure_rate must be between 0 and 1")
    source = rng if rng is not None else random.Random()

    def search_web(query: str) -> dict[str, Any]:
        """Search the public web (simulated demo results, not the user's documents; sometimes times out, then search_cached is used).

        Args:
            query: What to search for.
        """
        if source.random() < failure_rate:
            raise TransientToolError(
                f"simulated search backend timed out (fails {failure_rate:.0%} of the time, "
                "to demonstrate retries and the search_cached fallback)"
            )
        return _web_page(query, "web", 3)

    def search_cached(query: str) -> dict[str, Any]:
        """Return cached web search results (simulated; the fallback of search_web, may be stale).

        Args:
            query: What to search for.
        """
        return _web_page(query, "cache", 1)

    return search_web, search_cached
