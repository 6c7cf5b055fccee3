"""``convert_measurement``: a measurement in one unit, in another (miles → km, °C → °F, cups → ml).

A conversion needs a factor the request does not give (1.609 for miles, 9/5 and 32 for
Fahrenheit). Left to the calculator, a model writes the factor from memory, or, held to the
figures it has read (the local provider), cannot write it at all. As a tool, the factor comes
from `pint`'s unit definitions, and the call and its result are on the record like any other.

The unit names are pint's (``mile``, ``km``, ``degC``, ``fluid_ounce``, ``km/h``, ``ft**2``,
plurals and British spellings included), read a little more loosely the way people write them:
``°C``/``C``/``celsius``/``degrees celsius`` for a temperature, ``fl oz`` for pint's
``fluid_ounce``. A conversion between different kinds of quantity (kg → km) is a ValueError
saying so.
"""

from __future__ import annotations

import functools
import math
import re
from typing import Any

_TEMPERATURES = {
    "c": "degC",
    "celsius": "degC",
    "centigrade": "degC",
    "℃": "degC",
    "f": "degF",
    "fahrenheit": "degF",
    "℉": "degF",
    "k": "kelvin",
    "kelvin": "kelvin",
    "섭씨": "degC",
    "화씨": "degF",
}
"""Single letters and bare names read as temperatures: in a conversion, "C" is Celsius rather
than pint's coulomb, and "F" Fahrenheit rather than farad."""

_DEGREES = re.compile(r"^(?:degrees?|deg|°)\s*")

_ALIASES = {"fl oz": "fluid_ounce", "fl. oz": "fluid_ounce", "fl. oz.": "fluid_ounce", "mm hg": "mmHg"}
"""Names pint reads otherwise when written with a space ("fl oz" as femtolitre × ounce)."""

MAX_UNIT_CHARS = 40
"""Longest unit name read: pint parses a name as an expression, and a long one takes seconds."""
_CHAINED_POWER = re.compile(r"(\*\*|\^)[^A-Za-z]*(\*\*|\^)|(\*\*|\^)\s*[-+(]?\s*\d{3}")
"""A power of a power ("m**9**9**9") or one with three digits: pint would compute it for minutes."""

SIGNIFICANT = 6
"""Significant digits in a converted value (5 miles → 8.04672 km)."""


@functools.cache
def _registry() -> Any:
    import pint  # ~0.3 s: only when a conversion is asked for

    return pint.UnitRegistry()


def _unit(name: str) -> tuple[Any, str]:
    """pint's unit for ``name`` as a person writes it, and how the result writes it (the name as
    given; a temperature as its sign, "°F" rather than "fahrenheit"). ValueError when pint knows
    no such unit."""
    text = " ".join(name.strip().split())
    if not text:
        raise ValueError(f"a unit is empty; {_EXAMPLES}")
    if len(text) > MAX_UNIT_CHARS or _CHAINED_POWER.search(text):
        raise ValueError(f"unknown unit {name[:MAX_UNIT_CHARS]!r}; {_EXAMPLES}")
    lower = text.lower()
    bare = lower if lower in ("deg", "degree", "degrees") else _DEGREES.sub("", lower)
    if bare in _TEMPERATURES:
        unit = _registry().Unit(_TEMPERATURES[bare])
        return unit, _symbol(unit)
    # "square metres" as written (pint reads "square" itself), "fl oz" by its alias; "metric ton"
    # as metric_ton. Not the spaces removed: "m s" would be a millisecond.
    spellings = [_ALIASES.get(lower, text)] + ([text.replace(" ", "_")] if " " in text else [])
    for spelling in spellings:
        try:
            unit = _registry().Unit(spelling)
        except Exception:  # noqa: BLE001 - pint's parser raises many kinds (AssertionError, TokenError, ZeroDivisionError)
            continue
        return unit, _symbol(unit) if unit.dimensionality.get("[temperature]") else text
    raise ValueError(f"unknown unit {name!r}; {_EXAMPLES}")


_EXAMPLES = "write one such as 'km', 'mile', '°C', 'cup', 'kg' or 'km/h'"


def _number(value: float, digits: int = SIGNIFICANT) -> str:
    """``8.046720000001`` → ``8.04672``; ``37.77777777`` → ``37.7778``; ``24.0`` → ``24``;
    ``2500000.0`` → ``2,500,000``; beyond 10^15 in scientific notation."""
    rounded = float(f"{value:.{digits}g}")
    if abs(rounded) < 10**digits or abs(rounded) >= 1e15:
        return f"{rounded:.{digits}g}"
    return f"{rounded:,.0f}"


def _symbol(unit: Any) -> str:
    return f"{unit:~P}" or str(unit)


def convert_measurement(value: float, from_unit: str, to_unit: str) -> str:
    """Convert a measurement (length, weight, volume, temperature, speed, area, time) from one unit to another, e.g. miles to km or °C to °F.

    Args:
        value: The quantity to convert, e.g. 5.
        from_unit: The unit it is in, e.g. 'mile', 'kg', '°C', 'cup', 'mph'.
        to_unit: The unit wanted, e.g. 'km', 'lb', '°F', 'ml', 'km/h'.
    """
    import pint

    number = float(value)
    if not math.isfinite(number):
        raise ValueError(f"the value must be a finite number, not {value!r}")
    (source, source_text), (target, target_text) = _unit(from_unit), _unit(to_unit)
    quantity = _registry().Quantity(number, source)
    try:
        if source.dimensionality == {"[temperature]": 1} and quantity.to("kelvin").magnitude < 0:
            raise ValueError(f"{_number(number, 15)} {source_text} is below absolute zero")
        converted = quantity.to(target).magnitude
    except pint.DimensionalityError as exc:
        raise ValueError(
            f"cannot convert {source_text} ({source}) to {target_text} ({target}): "
            "they measure different kinds of quantity"
        ) from exc
    except (ArithmeticError, pint.PintError) as exc:
        raise ValueError(f"cannot convert {source_text} to {target_text}: {exc}") from exc
    return f"{_number(number, 15)} {source_text} = {_number(float(converted))} {target_text}"
