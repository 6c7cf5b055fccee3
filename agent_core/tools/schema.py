"""Schema inference: one pydantic model per tool gives both the JSON Schema and the validator.

Type hints (str/int/float/bool, Optional, list[...], Literal, Enum, Annotated) and the docstring
(first line → description, ``Args:`` section → parameter descriptions) are read once, when the
tool is registered.
"""

from __future__ import annotations

import inspect
import re
import typing
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from agent_core.errors import ToolDefinitionError, ToolValidationError

_ARG_LINE = re.compile(r"^\s{0,8}(\*{0,2}\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")
_SECTION = re.compile(r"^\s*(Args|Arguments|Parameters|Returns|Raises|Yields|Examples?|Notes?)\s*:\s*$")


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """Return (description, {param: description}) from a Google-style docstring."""
    if not doc:
        return "", {}
    lines = inspect.cleandoc(doc).splitlines()
    description = lines[0].strip() if lines else ""
    params: dict[str, str] = {}
    in_args = False
    current: str | None = None
    for line in lines[1:]:
        section = _SECTION.match(line)
        if section:
            in_args = section.group(1) in {"Args", "Arguments", "Parameters"}
            current = None
            continue
        if not in_args:
            continue
        match = _ARG_LINE.match(line)
        indent = len(line) - len(line.lstrip())
        if match and (current is None or indent <= 8):
            current = match.group(1).lstrip("*")
            params[current] = match.group(2).strip()
        elif current and line.strip():
            params[current] = f"{params[current]} {line.strip()}".strip()
    return description, params


def _inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """Inline ``$defs`` (pydantic puts Enums there) and drop pydantic's ``title`` noise."""
    defs = schema.pop("$defs", {})

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            if "$ref" in node and node["$ref"].startswith("#/$defs/"):
                target = walk(dict(defs[node["$ref"].split("/")[-1]]))
                extra = {k: walk(v) for k, v in node.items() if k != "$ref"}
                return {**target, **extra}
            return {k: walk(v) for k, v in node.items() if k != "title" or isinstance(v, dict)}
        if isinstance(node, list):
            return [walk(item) for item in node]
        return node

    return walk(schema)


def build_args_model(func: Callable[..., Any], name: str) -> type[BaseModel]:
    """A pydantic model of ``func``'s parameters, forbidding extra arguments."""
    signature = inspect.signature(func)
    try:
        hints = typing.get_type_hints(func, include_extras=True)
    except Exception as exc:  # a forward reference that cannot be resolved
        raise ToolDefinitionError(f"tool {name!r}: cannot read type hints: {exc}") from exc
    _, arg_docs = parse_docstring(func.__doc__)
    fields: dict[str, Any] = {}
    for pname, param in signature.parameters.items():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise ToolDefinitionError(f"tool {name!r}: *args / **kwargs are not supported")
        annotation = hints.get(pname, str)
        default = ... if param.default is inspect.Parameter.empty else param.default
        # Only a docstring description is passed: ``description=None`` would hide an ``Annotated`` one.
        extra: dict[str, Any] = {"description": arg_docs[pname]} if pname in arg_docs else {}
        fields[pname] = (annotation, Field(default, **extra))
    model_name = "".join(part.title() for part in re.split(r"\W+|_", name) if part) or "Tool"
    return create_model(
        f"{model_name}Arguments", __config__=ConfigDict(extra="forbid"), **fields
    )


def model_json_schema(model: type[BaseModel]) -> dict[str, Any]:
    """JSON Schema for the arguments: an object with ``additionalProperties: false``."""
    schema = _inline_refs(model.model_json_schema())
    schema.pop("description", None)
    out: dict[str, Any] = {"type": "object", "properties": schema.get("properties", {})}
    out["required"] = schema.get("required", [])
    out["additionalProperties"] = False
    return out


def format_validation_error(tool: str, exc: ValidationError) -> str:
    """One readable line per problem, in words a model (or a person) can act on."""
    missing, unexpected, wrong = [], [], []
    for err in exc.errors(include_url=False):
        loc = ".".join(str(p) for p in err["loc"]) or "arguments"
        if err["type"] == "missing":
            missing.append(loc)
        elif err["type"] == "extra_forbidden":
            unexpected.append(loc)
        else:
            given = err.get("input")
            shown = repr(given) if len(repr(given)) <= 60 else repr(given)[:57] + "..."
            wrong.append(f"{loc}: {err['msg']} (got {shown})")
    parts = []
    if missing:
        parts.append(f"missing argument(s): {', '.join(missing)}")
    if unexpected:
        parts.append(f"unexpected argument(s): {', '.join(unexpected)}")
    if wrong:
        parts.append("wrong type: " + "; ".join(wrong))
    return f"Invalid arguments for {tool}: " + "; ".join(parts)


def validate_arguments(model: type[BaseModel], tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """Validate and coerce ``arguments``; raise :class:`ToolValidationError` with a clear message."""
    try:
        validated = model.model_validate(arguments)
    except ValidationError as exc:
        raise ToolValidationError(format_validation_error(tool, exc)) from None
    return {name: getattr(validated, name) for name in type(validated).model_fields}
