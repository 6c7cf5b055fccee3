"""Tool registry and schema inference: exact schemas, the three formats, definition errors."""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Literal, Optional

import pytest
from pydantic import Field

from agent_core.errors import ToolDefinitionError, ToolValidationError
from agent_core.tools.registry import ToolRegistry, make_tool
from agent_core.tools.schema import parse_docstring


class Unit(str, Enum):
    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


def forecast(
    city: Annotated[str, Field(description="City name")],
    days: int,
    unit: Unit = Unit.CELSIUS,
    detail: Literal["short", "long"] = "short",
    hourly: bool = False,
    ratio: float = 1.0,
    tags: list[str] | None = None,
    note: Optional[str] = None,  # noqa: UP007 - Optional must be understood too
) -> str:
    """Forecast the weather for a city.

    More text that is not the description.

    Args:
        days: how many days ahead,
            counting today.
        hourly: one entry per hour.
    """
    return f"{city}:{days}:{unit.value}:{detail}:{hourly}:{ratio}:{tags}:{note}"


def test_schema_is_inferred_exactly() -> None:
    tool = make_tool(forecast)
    assert tool.description == "Forecast the weather for a city."
    assert tool.parameters == {
        "type": "object",
        "properties": {
            "city": {"description": "City name", "type": "string"},
            "days": {"description": "how many days ahead, counting today.", "type": "integer"},
            "unit": {"enum": ["celsius", "fahrenheit"], "type": "string", "default": "celsius"},
            "detail": {"default": "short", "enum": ["short", "long"], "type": "string"},
            "hourly": {"default": False, "description": "one entry per hour.", "type": "boolean"},
            "ratio": {"default": 1.0, "type": "number"},
            "tags": {"anyOf": [{"items": {"type": "string"}, "type": "array"}, {"type": "null"}], "default": None},
            "note": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
        },
        "required": ["city", "days"],
        "additionalProperties": False,
    }


def test_three_formats_from_one_registry() -> None:
    registry = ToolRegistry()
    registry.tool(forecast)
    tool = registry.get("forecast")
    assert tool is not None
    assert registry.to_openai_responses() == [
        {
            "type": "function",
            "name": "forecast",
            "description": tool.description,
            "parameters": tool.parameters,
            "strict": False,
        }
    ]
    assert registry.to_openai_chat() == [
        {
            "type": "function",
            "function": {"name": "forecast", "description": tool.description, "parameters": tool.parameters},
        }
    ]
    assert registry.to_anthropic() == [
        {"name": "forecast", "description": tool.description, "input_schema": tool.parameters}
    ]


def test_decorator_bare_and_with_options_returns_the_function() -> None:
    registry = ToolRegistry()

    @registry.tool
    def ping() -> str:
        """Answer pong."""
        return "pong"

    @registry.tool(name="search", description="Search things.", tags=["web"], fallback="ping", timeout=2.0)
    def search_impl(query: str) -> str:
        return query

    assert ping() == "pong" and search_impl("x") == "x"
    assert registry.names() == ["ping", "search"]
    search = registry.get("search")
    assert search is not None
    assert (search.description, search.tags, search.fallback, search.timeout) == (
        "Search things.",
        ("web",),
        "ping",
        2.0,
    )
    registry.check_fallbacks()
    assert registry.get("missing") is None
    assert "ping" in registry and len(registry) == 2


def test_duplicate_names_and_bad_fallbacks_raise_at_definition() -> None:
    registry = ToolRegistry()
    registry.tool(forecast)
    with pytest.raises(ToolDefinitionError, match="already registered"):
        registry.tool(forecast)

    @registry.tool(fallback="nowhere")
    def flaky(q: str) -> str:
        return q

    with pytest.raises(ToolDefinitionError, match="nowhere"):
        registry.check_fallbacks()
    with pytest.raises(ToolDefinitionError, match=r"\*args"):
        make_tool(lambda *a: a, name="star")
    with pytest.raises(ToolDefinitionError, match="tool name"):
        make_tool(forecast, name="bad name!")


def test_registries_are_independent() -> None:
    first, second = ToolRegistry(), ToolRegistry()
    first.tool(forecast)
    assert second.names() == []


def test_validation_messages_name_each_problem() -> None:
    tool = make_tool(forecast)
    assert tool.validate({"city": "Seoul", "days": "3"})["days"] == 3  # lax JSON-ish coercion of numbers
    with pytest.raises(ToolValidationError, match="missing argument\\(s\\): days"):
        tool.validate({"city": "Seoul"})
    with pytest.raises(ToolValidationError, match="unexpected argument\\(s\\): colour"):
        tool.validate({"city": "Seoul", "days": 1, "colour": "red"})
    with pytest.raises(ToolValidationError, match="wrong type: city"):
        tool.validate({"city": 5, "days": 1})
    with pytest.raises(ToolValidationError, match="unit"):
        tool.validate({"city": "Seoul", "days": 1, "unit": "kelvin"})
    validated = tool.validate({"city": "Seoul", "days": 2, "unit": "fahrenheit"})
    assert validated["unit"] is Unit.FAHRENHEIT
    assert forecast(**validated).startswith("Seoul:2:fahrenheit")


def test_parameters_override_is_sent_but_signature_still_validates() -> None:
    schema = {"type": "object", "properties": {"q": {"type": "string", "description": "query"}}, "required": ["q"]}
    tool = make_tool(lambda q: q, name="echo", parameters=schema, description="Echo.")
    assert tool.parameters is schema
    with pytest.raises(ToolValidationError, match="missing"):
        tool.validate({})


def test_parse_docstring_sections() -> None:
    description, params = parse_docstring(
        """Read a file.

        Args:
            path (str): where it is.
            max_chars: how much to read.

        Returns:
            text: not a parameter.
        """
    )
    assert description == "Read a file."
    assert params == {"path": "where it is.", "max_chars": "how much to read."}
    assert parse_docstring(None) == ("", {})
