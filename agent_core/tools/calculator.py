"""A safe arithmetic evaluator: parsed with :mod:`ast`, never ``eval``.

Only numbers and ``+ - * / ( ) ** %`` (and unary ``+``/``-``) are allowed. Every input is bounded
before any work is done — length, parenthesis depth, operator count, digits per number — and
powers are checked before they are computed, so no input can hang the process, exhaust memory or
raise anything but :class:`ValueError`.

Conveniences: ``×`` and ``÷`` (and the Unicode minus ``−``) are read as ``*``, ``/`` and ``-``;
a trailing ``=`` is ignored; commas are read as thousands separators only in groups of three
digits (``1,000`` → 1000, ``2,500,000`` → 2500000) — any other comma is refused. ``%`` between
two numbers is the remainder (``17 % 5`` → 2); after a number and before an operator, a bracket,
``of`` or the end it is percent (``15% * 240``, ``15% of 240`` → 36, ``240 * 15%``). Results are
printed as integers when they are integral and otherwise with at most 12 significant digits.
"""

from __future__ import annotations

import ast
import math
import re

MAX_LENGTH = 10_000
"""Longest expression accepted, in characters."""
MAX_PAREN_DEPTH = 100
"""Deepest nesting of parentheses."""
MAX_OPERATORS = 200
"""Most operators in one expression (bounds the depth of the parsed tree)."""
MAX_DIGITS = 1_000
"""Most digits in a number written in the expression or in an integer result."""
MAX_EXPONENT = 10_000
"""Largest absolute exponent of ``**``."""

ALLOWED = "only numbers and + - * / ( ) ** % are allowed"

# × ÷ − ∗ (multiplication sign, division sign, minus sign, asterisk operator)
_TRANSLATE = str.maketrans({"\u00d7": "*", "\u00f7": "/", "\u2212": "-", "\u2217": "*"})
_THOUSANDS = re.compile(r"(?<![\w.,])\d{1,3}(?:,\d{3})+(?![\w,])")
_OPERATOR = re.compile(r"\*\*|[-+*/%]")
_PERCENT = re.compile(r"(?<![\d.])(\d++(?:\.\d++)?+)\s*+%(?=\s*(?:\*\*|[-+*/)]|of\b|$))")
"""A percent sign that cannot be a remainder: nothing it could take the remainder by follows.
Possessive and anchored at a number's start: a 9,000-digit input took 18 s with backtracking."""
_OF = re.compile(r"(?<=\))\s*of\s+")
_DIGIT_RUN = re.compile(r"[0-9_]+")
_INT_LIMIT = 10**MAX_DIGITS

_BINOPS: dict[type[ast.operator], str] = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.Mod: "%",
    ast.Pow: "**",
}
_HINTS: dict[type[ast.AST], str] = {
    ast.BitXor: "'^' is not a power operator here; write 2**10 for powers",
    ast.FloorDiv: "'//' is not supported; use /",
    ast.Tuple: "a comma is only allowed as a thousands separator, e.g. 1,000",
    ast.Call: "function calls are not allowed",
    ast.Name: "names and variables are not allowed",
    ast.Attribute: "attributes are not allowed",
    ast.Subscript: "indexing is not allowed",
    ast.Lambda: "lambdas are not allowed",
    ast.Compare: "comparisons are not allowed",
    ast.BoolOp: "'and' / 'or' are not allowed",
}

Number = int | float


def calculate(expression: str) -> str:
    """Evaluate an arithmetic expression such as ``'(24*7)+100'`` and return the result as text.

    Raises:
        ValueError: with a message saying what is wrong, for anything but plain arithmetic
            within the bounds above (including division by zero).
    """
    source = _normalise(expression)
    _check_bounds(source)
    tree = _parse(source)
    _check_nodes(tree)
    return format_number(_evaluate(tree.body))


def format_number(value: Number) -> str:
    """``168`` for integral values (also ``168.0``), else at most 12 significant digits."""
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 1e15:
            return str(int(value))
        return f"{value:.12g}"
    return str(value)


def _normalise(expression: str) -> str:
    if not isinstance(expression, str):
        raise ValueError("the expression must be text, e.g. '24 * 7'")
    if len(expression) > MAX_LENGTH:
        raise ValueError(f"expression is too long ({len(expression):,} characters; the limit is {MAX_LENGTH:,})")
    text = "".join(" " if ch.isspace() else ch for ch in expression.translate(_TRANSLATE)).strip()
    if text.endswith("="):
        text = text[:-1].rstrip()
    if not text:
        raise ValueError(f"empty expression; {ALLOWED}, e.g. '24 * 7'")
    for pos, ch in enumerate(text):
        if not (ch.isascii() and ch.isprintable()):
            raise ValueError(f"unsupported character {ch!r} at position {pos}; {ALLOWED} (digits must be ASCII 0-9)")
    text = _THOUSANDS.sub(lambda m: m.group(0).replace(",", ""), text)
    return _OF.sub(" * ", _PERCENT.sub(r"(\1 / 100)", text))


def _check_bounds(source: str) -> None:
    depth = deepest = 0
    for ch in source:
        if ch in "([{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in ")]}":
            depth -= 1
    if deepest > MAX_PAREN_DEPTH:
        raise ValueError(
            f"expression is nested too deeply ({deepest} levels of parentheses; the limit is {MAX_PAREN_DEPTH})"
        )
    operators = len(_OPERATOR.findall(source))
    if operators > MAX_OPERATORS:
        raise ValueError(f"expression has too many operators ({operators}; the limit is {MAX_OPERATORS})")
    longest = max((len(run) for run in _DIGIT_RUN.findall(source)), default=0)
    if longest > MAX_DIGITS:
        raise ValueError(f"a number has too many digits ({longest}; the limit is {MAX_DIGITS})")


def _parse(source: str) -> ast.Expression:
    try:
        return ast.parse(source, mode="eval")
    except SyntaxError as exc:
        where = f" near position {exc.offset}" if exc.offset else ""
        raise ValueError(
            f"could not read {source[:80]!r} as arithmetic{where} "
            f"(check for a missing operator or an unbalanced parenthesis); {ALLOWED}"
        ) from None
    except (RecursionError, MemoryError):  # safety net; the bounds above should prevent it
        raise ValueError("expression is nested too deeply") from None
    except ValueError as exc:
        raise ValueError(f"could not read the expression: {exc}; {ALLOWED}") from None


def _check_nodes(tree: ast.Expression) -> None:
    for node in ast.walk(tree):  # breadth-first and iterative: safe for any depth
        if isinstance(node, ast.Expression | ast.BinOp | ast.UnaryOp | ast.UAdd | ast.USub):
            continue
        if isinstance(node, ast.Constant):
            value = node.value
            if isinstance(value, bool) or not isinstance(value, int | float):
                kind = "imaginary numbers are" if isinstance(value, complex) else f"{value!r} is"
                raise ValueError(f"{kind} not allowed; {ALLOWED}")
            continue
        if isinstance(node, ast.operator) and type(node) in _BINOPS:
            continue
        hint = next((h for t, h in _HINTS.items() if isinstance(node, t)), None)
        detail = f" ({node.id!r})" if isinstance(node, ast.Name) else ""
        raise ValueError(f"{hint or 'unsupported syntax'}{detail}; {ALLOWED}")


def _evaluate(root: ast.expr) -> Number:
    """Post-order evaluation with an explicit stack (no recursion, whatever the tree depth)."""
    values: list[Number] = []
    stack: list[tuple[ast.expr, bool]] = [(root, False)]
    while stack:
        node, ready = stack.pop()
        if isinstance(node, ast.Constant):
            values.append(_checked(node.value))
        elif not ready:
            stack.append((node, True))
            if isinstance(node, ast.BinOp):
                stack.append((node.right, False))
                stack.append((node.left, False))
            elif isinstance(node, ast.UnaryOp):
                stack.append((node.operand, False))
        elif isinstance(node, ast.BinOp):
            right = values.pop()
            left = values.pop()
            values.append(_checked(_binop(node.op, left, right)))
        elif isinstance(node, ast.UnaryOp):
            operand = values.pop()
            values.append(-operand if isinstance(node.op, ast.USub) else +operand)
    return values[0]


def _binop(op: ast.operator, left: Number, right: Number) -> Number | complex:
    symbol = _BINOPS[type(op)]
    try:
        if symbol == "+":
            return left + right
        if symbol == "-":
            return left - right
        if symbol == "*":
            return left * right
        if symbol == "/":
            return left / right
        if symbol == "%":
            return left % right
        _check_power(left, right)
        return left**right
    except ZeroDivisionError:
        what = "0 to a negative power" if symbol == "**" else "division by zero"
        raise ValueError(f"{what} is undefined") from None
    except OverflowError:
        raise ValueError("the result is too large to compute") from None


def _check_power(base: Number, exponent: Number) -> None:
    if abs(exponent) > MAX_EXPONENT:
        raise ValueError(f"exponent {format_number(exponent)} is too large (the limit is ±{MAX_EXPONENT:,})")
    if isinstance(base, int) and isinstance(exponent, int) and exponent > 0 and abs(base) > 1:
        digits = exponent * math.log10(abs(base))
        if digits > MAX_DIGITS:
            raise ValueError(f"the result would have about {digits:,.0f} digits (the limit is {MAX_DIGITS:,})")


def _checked(value: object) -> Number:
    """``value`` if it is a finite real number within the bounds, else ValueError."""
    if isinstance(value, complex):
        raise ValueError("the result is not a real number (negative number to a fractional power)")
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(ALLOWED)
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError("the result is too large (not a finite number)")
    if isinstance(value, int) and abs(value) >= _INT_LIMIT:
        raise ValueError(f"the result has more than {MAX_DIGITS:,} digits")
    return value
