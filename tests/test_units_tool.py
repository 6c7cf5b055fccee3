"""convert_measurement: pint's units, read the way people write them, and clear errors."""

from __future__ import annotations

import re

import pytest

from agent_core.settings import Settings
from agent_core.tools.builtins import BUILTIN_TOOL_NAMES, build_builtin_registry
from agent_core.tools.units import convert_measurement


@pytest.mark.parametrize(
    ("value", "source", "target", "result"),
    [
        (5, "miles", "kilometres", "5 miles = 8.04672 kilometres"),
        (100, "fahrenheit", "celsius", "100 °F = 37.7778 °C"),
        (100, "degrees Fahrenheit", "degrees Celsius", "100 °F = 37.7778 °C"),
        (180, "C", "F", "180 °C = 356 °F"),  # not coulomb and farad
        (25, "섭씨", "화씨", "25 °C = 77 °F"),
        (3, "cup", "ml", "3 cup = 709.765 ml"),
        (5, "fl oz", "ml", "5 fl oz = 147.868 ml"),  # not femtolitre × ounce
        (100, "square metres", "sq ft", "100 square metres = 1076.39 sq ft"),
        (50, "mph", "km/h", "50 mph = 80.4672 km/h"),
        (2, "kg", "lb", "2 kg = 4.40925 lb"),
        (2_500_000, "m", "km", "2500000 m = 2500 km"),
        (1_234_567.891, "m", "cm", "1234567.891 m = 123,457,000 cm"),  # the value as given, the result to 6 digits
        (1, "N m", "J", "1 N m = 1 J"),  # as written: "Nm" would be another unit
        (1, "Kelvin", "C", "1 K = -272.15 °C"),
    ],
)
def test_conversions(value: float, source: str, target: str, result: str) -> None:
    assert convert_measurement(value, source, target) == result


@pytest.mark.parametrize(
    ("value", "source", "target", "message"),
    [
        (2, "kg", "km", "cannot convert kg (kilogram) to km (kilometer): they measure different kinds of quantity"),
        (1, "furlongz", "m", "unknown unit 'furlongz'"),
        (1, " ", "m", "a unit is empty"),
        (float("inf"), "m", "km", "the value must be a finite number"),
        (-500, "C", "K", "-500 °C is below absolute zero"),
        (1, "m s", "s", "cannot convert m s (meter * second) to s (second)"),  # not a millisecond
        # pint's parser would compute 9**387420489, or raise AssertionError, ZeroDivisionError, TokenError
        (1, "m**9**9**9", "m", "unknown unit 'm**9**9**9'"),
        (1, "km**1000", "m**1000", "unknown unit 'km**1000'"),
        (1, "m**", "m", "unknown unit 'm**'"),
        (1, "1/0", "m", "unknown unit '1/0'"),
        (1, "(", "m", "unknown unit '('"),
        (1, "x" * 10_000, "m", "unknown unit 'xxxxxxxx"),
    ],
)
def test_bad_input_is_a_clear_value_error(value: float, source: str, target: str, message: str) -> None:
    with pytest.raises(ValueError, match="^" + re.escape(message)):
        convert_measurement(value, source, target)


def test_it_is_a_built_in_tool_with_a_schema_from_its_signature(settings: Settings) -> None:
    tool = build_builtin_registry(settings).get("convert_measurement")
    assert "convert_measurement" in BUILTIN_TOOL_NAMES
    assert tool.parameters["required"] == ["value", "from_unit", "to_unit"]
    assert tool.parameters["properties"]["value"]["type"] == "number"
    assert tool.description.endswith("from one unit to another, e.g. miles to km or °C to °F.")
