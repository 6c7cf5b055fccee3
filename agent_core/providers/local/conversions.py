"""Unit conversions planned from the goal's own words, so the model never writes the formula.

Left to write it, Qwen2.5-Coder-1.5B turned conversions around: "Convert 100 Fahrenheit to
Celsius" became ``100 * 9 / 5 + 32`` ("212 degrees Celsius"), "How many pounds is 5 kg?" became
``5 * 0.45359237`` ("2.27 pounds"). Here the value, the unit it is in and the unit asked for are
read from the goal (English and Korean: "X A to B", "X A in B", "how many B is X A",
"X A는 B로 몇", "X A는 몇 B", "섭씨 30도는 화씨로"), and the calculator expression is written from
a small table. Pure functions, unit-tested without the model.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from agent_core.text.number_words import with_digits


@dataclass(frozen=True)
class Unit:
    """One unit: its id, its kind and size (in the kind's base unit), the name shown in an
    answer, and the words that name it."""

    id: str
    kind: str
    size: str
    name: str
    korean: str
    pattern: re.Pattern[str]


def _unit(uid: str, kind: str, size: str, name: str, korean: str, pattern: str) -> Unit:
    return Unit(uid, kind, size, name, korean, re.compile(pattern, re.IGNORECASE))


UNITS: tuple[Unit, ...] = (
    _unit(
        "C",
        "temperature",
        "",
        "°C",
        "섭씨",
        r"°\s*c\b|℃|degrees? (?:c\b|celsius|centigrade)|\bcelsius\b|\bcentigrade\b|섭씨",
    ),
    _unit("F", "temperature", "", "°F", "화씨", r"°\s*f\b|℉|degrees? (?:f\b|fahrenheit)|\bfahrenheit\b|화씨"),
    _unit("kg", "mass", "1", "kg", "킬로그램", r"\bkilograms?\b|\bkgs?\b|킬로그램|키로그램"),
    _unit("lb", "mass", "0.45359237", "pounds", "파운드", r"\bpounds?\b|\blbs?\b|파운드"),
    _unit("g", "mass", "0.001", "g", "그램", r"\bgrams?\b|(?<=\d)\s*g\b|(?<!킬로)(?<!키로)그램"),
    _unit("oz", "mass", "0.028349523125", "ounces", "온스", r"\bounces?\b|\boz\b|온스"),
    _unit("km", "length", "1000", "km", "킬로미터", r"\bkilomet(?:er|re)s?\b|\bkms?\b|킬로미터|키로미터"),
    _unit("mi", "length", "1609.344", "miles", "마일", r"\bmiles?\b|\bmi\b|마일"),
    _unit("cm", "length", "0.01", "cm", "센티미터", r"\bcentimet(?:er|re)s?\b|\bcm\b|센티미터|센티|(?<=\d)cm"),
    _unit("in", "length", "0.0254", "inches", "인치", r"\binch(?:es)?\b|인치"),
    _unit(
        "m", "length", "1", "m", "미터", r"\bmet(?:er|re)s?\b|(?<=\d)\s*m\b|(?<!킬로)(?<!키로)(?<!센티)(?<!밀리)미터"
    ),
    _unit("ft", "length", "0.3048", "feet", "피트", r"\bfeet\b|\bfoot\b|\bft\b|피트"),
    _unit("yd", "length", "0.9144", "yards", "야드", r"\byards?\b|\byds?\b|야드"),
    _unit("L", "volume", "1", "L", "리터", r"\blit(?:er|re)s?\b|(?<=\d)\s*l\b|리터"),
    _unit("gal", "volume", "3.785411784", "gallons", "갤런", r"\bgallons?\b|\bgal\b|갤런"),
    _unit("ml", "volume", "0.001", "ml", "밀리리터", r"\bmillilit(?:er|re)s?\b|\bml\b|밀리리터|(?<=\d)ml"),
)
_KILO = re.compile(r"\bkilos?\b|킬로(?!미터|그램)|키로(?!미터|그램)", re.IGNORECASE)
""""kilo", "5킬로": kilograms, or kilometres beside miles ("10마일은 몇 킬로야?")."""
_BY_ID = {u.id: u for u in UNITS}

# (from, to): the expression with {x} for the value, for the usual pairs; other pairs of one kind
# go through the kind's base unit. Factors are exact definitions.
FORMULAS: dict[tuple[str, str], str] = {
    ("C", "F"): "{x} * 9 / 5 + 32",
    ("F", "C"): "({x} - 32) * 5 / 9",
    ("kg", "lb"): "{x} / 0.45359237",
    ("lb", "kg"): "{x} * 0.45359237",
    ("km", "mi"): "{x} / 1.609344",
    ("mi", "km"): "{x} * 1.609344",
    ("m", "ft"): "{x} / 0.3048",
    ("ft", "m"): "{x} * 0.3048",
    ("cm", "in"): "{x} / 2.54",
    ("in", "cm"): "{x} * 2.54",
    ("L", "gal"): "{x} / 3.785411784",
    ("gal", "L"): "{x} * 3.785411784",
}
_PARTNER = {a: b for a, b in FORMULAS}


def formula(source: str, target: str) -> str | None:
    """The expression (with ``{x}``) converting ``source`` to ``target``, None across kinds."""
    if (source, target) in FORMULAS:
        return FORMULAS[(source, target)]
    a, b = _BY_ID[source], _BY_ID[target]
    if a.kind != b.kind or a.kind == "temperature" or source == target:
        return None
    return "{x} * " + a.size + " / " + b.size


_VALUE = re.compile(r"(?<![\w.])(-|−|minus\s+|영하\s*)?(\d[\d,]*(?:\.\d+)?)")
_BETWEEN_VALUE_AND_UNIT = re.compile(r"\s*(?:degrees?|deg|도)?\s*$", re.IGNORECASE)
_ASKS_CONVERSION = re.compile(
    r"convert|conversion|\bin\b|\binto\b|\bto\b|\bas\b|how many|how much|what is|what's|equal|변환|바꾸|바꿔|환산|몇|얼마",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Conversion:
    """A conversion the goal asks for: ``value`` (as written, no commas) from one unit to another."""

    value: str
    source: str
    target: str

    @property
    def expression(self) -> str:
        written = formula(self.source, self.target)
        assert written is not None  # conversion() makes none across kinds
        return written.format(x=self.value)

    def hint(self, korean: bool = False) -> str:
        """A line for the answer: which unit the calculator's result is in (the model wrote
        "212 degrees Celsius" for a result in °F)."""
        source, target = _BY_ID[self.source], _BY_ID[self.target]
        if korean:
            given = (
                f"{source.korean} {self.value}도" if source.kind == "temperature" else f"{self.value}{source.korean}"
            )
            return f"\n\n(위 계산기 결과는 {target.korean} 값입니다: {given}을(를) {target.korean}(으)로 바꾼 값.)"
        return (
            f"\n\n(The calculator result above is in {target.name}: it is {self.value} {source.name} "
            f"converted to {target.name}.)"
        )


def _mentions(text: str) -> list[tuple[int, int, str]]:
    found: list[tuple[int, int, str]] = []
    for uid, pattern in [(u.id, u.pattern) for u in UNITS] + [("kilo", _KILO)]:
        for m in pattern.finditer(text):
            if not any(s < m.end() and m.start() < e for s, e, _ in found):  # "kilometres" is no "metres"
                found.append((m.start(), m.end(), uid))
    found.sort()
    kinds = {_BY_ID[uid].kind for _, _, uid in found if uid != "kilo"}
    kilo = "km" if "length" in kinds and "mass" not in kinds else "kg"
    return [(s, e, kilo if uid == "kilo" else uid) for s, e, uid in found]


def conversion(goal: str) -> Conversion | None:
    """The conversion ``goal`` asks for, else None.

    The unit written right after the one value is the unit it is in ("5 kg", "100 °F", "30도");
    a temperature scale right before it counts too ("섭씨 30도"). Another unit of the same kind
    named in the goal is the unit asked for. With only the unit asked named ("30 degrees to
    Fahrenheit"), the value is in its usual partner unit.
    """
    text = with_digits(unicodedata.normalize("NFKC", goal))
    values = [m for m in _VALUE.finditer(text) if not re.fullmatch(r"(?:19|20)\d\d", m.group(2))]
    mentions = _mentions(text)
    if len(values) != 1 or not mentions or not _ASKS_CONVERSION.search(text):
        return None
    value = values[0]
    number = value.group(2).replace(",", "")
    if value.group(1):
        number = "-" + number
    after = [
        uid
        for start, _, uid in mentions
        if start >= value.end() and _BETWEEN_VALUE_AND_UNIT.fullmatch(text[value.end() : start])
    ]
    before = [
        uid
        for _, end, uid in mentions
        if end <= value.start()
        and _BY_ID[uid].kind == "temperature"
        and re.fullmatch(r"\s*(?:영하\s*)?", text[end : value.start()])
    ]
    source = next(iter(after or before), None)
    others = [uid for _, _, uid in mentions if uid != source]
    if source is None:
        targets = {uid for uid in others if uid in _PARTNER}
        if len(targets) != 1:
            return None
        target = targets.pop()
        return Conversion(number, _PARTNER[target], target)
    targets = {uid for uid in others if formula(source, uid) is not None}
    if len(targets) != 1:
        return None
    return Conversion(number, source, targets.pop())
