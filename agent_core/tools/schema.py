"""Schema inference: one pydantic model per tool gives both the JSON Schema and the validator.

Type hints (str/int/float/bool, Optional, list[...], Literal, Enum, Annotated) and the docstring
(first line → description, ``Args:`` section → parameter descriptions) are read once, when the
tool is registered.
"""

from __future__ import annotations

import copy
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


def inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """A copy of a JSON Schema with its local ``$ref``s replaced by their ``$defs`` (pydantic puts
    Enums there), without pydantic's ``title`` noise: what the model and the forms read."""
    defs = schema.get("$defs") or schema.get("definitions") or {}

    def resolve(node: Any, depth: int = 0) -> Any:
        if depth > 20:
            return {}
        if isinstance(node, list):
            return [resolve(item, depth + 1) for item in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(("#/$defs/", "#/definitions/")):
            target = defs.get(ref.rsplit("/", 1)[-1], {})
            return resolve({**target, **{k: v for k, v in node.items() if k != "$ref"}}, depth + 1)
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key in ("$defs", "definitions", "title"):
                continue  # keywords only: property names are handled below
            if key == "properties" and isinstance(value, dict):
                out[key] = {name: resolve(prop, depth + 1) for name, prop in value.items()}
            else:
                out[key] = resolve(value, depth + 1)
        return out

    resolved = resolve(copy.deepcopy(schema))
    if not isinstance(resolved, dict) or not resolved:
        return {"type": "object", "properties": {}, "additionalProperties": False}
    resolved.setdefault("type", "object")
    resolved.setdefault("properties", {})
    return resolved


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
    return create_model(f"{model_name}Arguments", __config__=ConfigDict(extra="forbid"), **fields)


def model_json_schema(model: type[BaseModel]) -> dict[str, Any]:
    """JSON Schema for the arguments: an object with ``additionalProperties: false``."""
    schema = inline_refs(model.model_json_schema())
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
