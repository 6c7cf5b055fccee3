"""llama.cpp's own grammar format (GBNF) for the final answer, instead of llguidance.

The first llguidance grammar in a process builds tables over the model's 151,000-token vocabulary:
~1.7 s on 2 cores, before the first token (a new CLI process pays it in every run). llama.cpp's
GBNF sampler builds none (its first grammar took 0.15 s), and a greedy token is checked against it
one at a time. So the answer-only schema, ``{"answer": "<text matching a pattern>"}``, the one
the answer step of a planned run sends, goes to llama.cpp as GBNF; every other schema (tool calls,
an answer with a length limit) stays llguidance's JSON schema.

The answer patterns are this package's own (:func:`~agent_core.providers.local.figures.answer_pattern`):
anchors, literals, escaped punctuation, character classes with ranges, non-capturing groups,
alternation and the ``* + ? {m,n}`` quantifiers. Anything else raises :class:`Unsupported`, and the
caller keeps llguidance. The pattern constrains the JSON string's *value*, so ``"`` and ``\\`` are
written the way JSON escapes them.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

SCHEMA_COMMENT = "# JSON schema: "
"""The grammar's first line: the schema it was made from (GBNF comments run to the line's end)."""


class Unsupported(ValueError):
    """A pattern outside the subset converted here."""


# -- the pattern, parsed -------------------------------------------------------------------------


@dataclass(frozen=True)
class Literal:
    text: str


@dataclass(frozen=True)
class CharClass:
    ranges: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class Sequence:
    items: tuple[Node, ...]


@dataclass(frozen=True)
class Alternation:
    options: tuple[Node, ...]


@dataclass(frozen=True)
class Repeat:
    item: Node
    low: int
    high: int | None  # None: no upper bound


Node = Literal | CharClass | Sequence | Alternation | Repeat

_BRACES = re.compile(r"\{(\d+)(?:(,)(\d*))?\}")


class _Parser:
    def __init__(self, pattern: str) -> None:
        if not (pattern.startswith("^") and pattern.endswith("$")) or pattern.endswith("\\$"):
            raise Unsupported("the pattern must be anchored at both ends")
        self.text, self.at = pattern[1:-1], 0

    def parse(self) -> Node:
        node = self.alternation()
        if self.at != len(self.text):
            raise Unsupported(f"unbalanced ')' at {self.at}")
        return node

    def peek(self) -> str | None:
        return self.text[self.at] if self.at < len(self.text) else None

    def alternation(self) -> Node:
        options = [self.sequence()]
        while self.peek() == "|":
            self.at += 1
            options.append(self.sequence())
        return options[0] if len(options) == 1 else Alternation(tuple(options))

    def sequence(self) -> Node:
        items: list[Node] = []
        while (c := self.peek()) is not None and c not in "|)":
            item = self.quantified(self.atom())
            if isinstance(item, Literal) and items and isinstance(items[-1], Literal):
                items[-1] = Literal(items[-1].text + item.text)
            else:
                items.append(item)
        return items[0] if len(items) == 1 else Sequence(tuple(items))

    def quantified(self, item: Node) -> Node:
        c = self.peek()
        if c in ("*", "+", "?"):
            self.at += 1
            low, high = {"*": (0, None), "+": (1, None), "?": (0, 1)}[c]
        elif c == "{" and (m := _BRACES.match(self.text, self.at)):
            self.at = m.end()
            low = int(m.group(1))
            high = low if not m.group(2) else (int(m.group(3)) if m.group(3) else None)
        else:
            return item
        if self.peek() in ("?", "+"):
            raise Unsupported("lazy or possessive quantifier")
        if isinstance(item, Literal) and len(item.text) > 1:  # "ab*": the quantifier takes the "b"
            return Sequence((Literal(item.text[:-1]), Repeat(Literal(item.text[-1]), low, high)))
        return Repeat(item, low, high)

    def atom(self) -> Node:
        c = self.text[self.at]
        if c == "(":
            if self.text.startswith("(?:", self.at):
                self.at += 3
            elif self.text.startswith("(?", self.at):
                raise Unsupported("only (…) and (?:…) groups")
            else:
                self.at += 1
            inner = self.alternation()
            if self.peek() != ")":
                raise Unsupported("unclosed group")
            self.at += 1
            return inner
        if c == "[":
            return self.char_class()
        if c in ".^$*+?{}]":
            raise Unsupported(f"{c!r} at {self.at}")
        return Literal(self.char())

    def char(self) -> str:
        c = self.text[self.at]
        if c != "\\":
            self.at += 1
            return c
        if self.at + 1 >= len(self.text):
            raise Unsupported("a trailing backslash")
        escaped = self.text[self.at + 1]
        if escaped.isalnum():  # \d, \w, \n, \x41 …: none of them in the answer patterns
            raise Unsupported(f"the escape \\{escaped}")
        self.at += 2
        return escaped

    def char_class(self) -> CharClass:
        self.at += 1
        if self.peek() == "^":
            raise Unsupported("a negated character class")
        ranges: list[tuple[int, int]] = []
        while self.peek() != "]":
            if self.peek() is None:
                raise Unsupported("unclosed character class")
            low = self.char()
            if self.peek() == "-" and self.at + 1 < len(self.text) and self.text[self.at + 1] != "]":
                self.at += 1
                high = self.char()
                if ord(high) < ord(low):
                    raise Unsupported("a reversed range")
                ranges.append((ord(low), ord(high)))
            else:
                ranges.append((ord(low), ord(low)))
        self.at += 1
        return CharClass(tuple(ranges))


def parse(pattern: str) -> Node:
    """The pattern as a tree; :class:`Unsupported` outside the subset."""
    return _Parser(pattern).parse()


# -- the tree, written as GBNF over JSON string content ---------------------------------------------

_QUOTE, _BACKSLASH = ord('"'), ord("\\")


def _json_literal(text: str) -> str:
    """A GBNF string literal for ``text`` as it appears inside a JSON string."""
    out = []
    for c in json.dumps(text, ensure_ascii=False)[1:-1]:  # JSON's own escaping: \" \\ \n \u0001
        out.append(c if c not in '"\\' else "\\" + c)
    return '"' + "".join(out) + '"'


def _class_char(code: int) -> str:
    c = chr(code)
    if c in '\\]-[^"' or code < 0x20 or code == 0x7F:
        return f"\\x{code:02X}" if code <= 0xFF else f"\\u{code:04X}"
    return c


def _char_class(node: CharClass) -> str:
    """``[…]`` without ``"`` and ``\\`` (and control characters), which JSON escapes; those
    become alternatives of their escaped form."""
    plain: list[tuple[int, int]] = []
    escaped: list[str] = []
    for low, high in node.ranges:
        start = max(low, 0x20)
        for special in (_QUOTE, _BACKSLASH):  # cut out of the range, in order
            if low <= special <= high:
                escaped.append(_json_literal(chr(special)))
                if start < special:
                    plain.append((start, special - 1))
                start = special + 1
        if start <= high:
            plain.append((start, high))
    ranges = "".join(_class_char(a) + ("" if a == b else "-" + _class_char(b)) for a, b in plain)
    options = ([f"[{ranges}]"] if plain else []) + list(dict.fromkeys(escaped))
    if not options:
        raise Unsupported("a character class of control characters only")
    return options[0] if len(options) == 1 else "(" + " | ".join(options) + ")"


def to_gbnf(node: Node) -> str:
    """The GBNF expression for ``node`` (matching the JSON-escaped text of what ``node`` matches)."""
    if isinstance(node, Literal):
        return _json_literal(node.text)
    if isinstance(node, CharClass):
        return _char_class(node)
    if isinstance(node, Sequence):
        return " ".join(_grouped(item) for item in node.items) if node.items else '""'
    if isinstance(node, Alternation):
        return "(" + " | ".join(to_gbnf(option) for option in node.options) + ")"
    item = _grouped(node.item)
    if (node.low, node.high) == (0, None):
        return item + "*"
    if (node.low, node.high) == (1, None):
        return item + "+"
    if (node.low, node.high) == (0, 1):
        return item + "?"
    bounds = str(node.low) if node.high == node.low else f"{node.low},{'' if node.high is None else node.high}"
    return item + "{" + bounds + "}"


def _grouped(node: Node) -> str:
    text = to_gbnf(node)
    return f"({text})" if isinstance(node, Sequence) and len(node.items) > 1 else text


def answer_grammar(schema: dict[str, Any]) -> str | None:
    """GBNF for ``{"answer": <a string matching a pattern>}`` written on one line as
    ``{"answer": "…"}``, or None for any other schema (or a pattern outside the subset)."""
    properties = schema.get("properties")
    if (
        schema.get("type") != "object"
        or not isinstance(properties, dict)
        or list(properties) != ["answer"]
        or schema.get("required") != ["answer"]
    ):
        return None
    answer = properties["answer"]
    if set(answer) != {"type", "pattern"} or answer["type"] != "string":
        return None  # a length limit (maxLength) or anything else stays with llguidance
    try:
        value = to_gbnf(parse(answer["pattern"]))
    except Unsupported:
        return None
    return (
        SCHEMA_COMMENT
        + json.dumps(schema, ensure_ascii=False)
        + '\nroot ::= "{\\"answer\\": \\"" value "\\"}"\nvalue ::= '
        + value
        + "\n"
    )
