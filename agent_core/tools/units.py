"""``convert_measurement``: a measurement in one unit, in another (miles → km, °C → °F, cups → ml).

A conversion needs a factor the request does not give (1.609 for miles, 9/5 and 32 for
Fahrenheit). Left to the calculator, a model writes the factor from memory, or, held to the
figures it has read (the local provider), cannot write it at all. As a tool, the factor comes
from `pint`'s unit definitions, and the call and its result are on the record like any other.

The unit names are pint's (``mile``, ``km``, ``degC``, ``fluid_ounce``, ``km/h``, ``ft**2``,
plurals and British spellings included), read a little more loosely the way people write them:
``°C``/``C``/``celsius``/``degrees celsius`` for a temperature, ``fl oz`` for ``fl_oz``. A
conversion between different kinds of quantity (kg → km) is a ValueError saying so.
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
    "섭씨": "degC",
    "화씨": "degF",
}
"""Single letters and bare names read as temperatures: in a conversion, "C" is Celsius rather
than pint's coulomb, and "F" Fahrenheit rather than farad."""

_DEGREES = re.compile(r"^(?:degrees?|deg|°)\s*")

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
    import pint

    text = " ".join(name.strip().split())
    if not text:
        raise ValueError(f"a unit is empty; {_EXAMPLES}")
    lower = text.lower()
    bare = lower if lower in ("deg", "degree", "degrees") else _DEGREES.sub("", lower)
    if bare in _TEMPERATURES:
        unit = _registry().Unit(_TEMPERATURES[bare])
        return unit, _symbol(unit)
    # "fl oz" → fl_oz, then floz; "square metres" as written (pint reads "square" itself).
    spellings = [text.replace(" ", "_"), text.replace(" ", ""), text] if " " in text else [text]
    for spelling in spellings:
        try:
            unit = _registry().Unit(spelling)
        except (pint.UndefinedUnitError, pint.DefinitionSyntaxError, AttributeError, TypeError, ValueError):
            continue
        return unit, _symbol(unit) if unit.dimensionality.get("[temperature]") else text
    raise ValueError(f"unknown unit {name!r}; {_EXAMPLES}")


_EXAMPLES = "write one such as 'km', 'mile', '°C', 'cup', 'kg' or 'km/h'"


def _number(value: float) -> str:
    """``8.046720000001`` → ``8.04672``; ``37.77777777`` → ``37.7778``; ``24.0`` → ``24``."""
    return f"{value:.{SIGNIFICANT}g}" if abs(value) < 10**SIGNIFICANT else f"{value:,.0f}"


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
    try:
        converted = _registry().Quantity(number, source).to(target).magnitude
    except pint.DimensionalityError as exc:
        raise ValueError(
            f"cannot convert {source_text} ({source}) to {target_text} ({target}): "
            "they measure different kinds of quantity"
        ) from exc
    return f"{_number(number)} {source_text} = {_number(float(converted))} {target_text}"
