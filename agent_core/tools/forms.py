"""Form fields from a tool's JSON Schema, and the arguments from the values typed into them
(pure code: the Tools page draws the widgets)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class FieldSpec:
    """One argument of a tool as a form field."""

    name: str
    kind: str
    """``text``, ``integer``, ``number``, ``boolean``, ``enum`` or ``json`` (anything else)."""
    required: bool
    default: Any = None
    options: tuple[Any, ...] = ()
    description: str = ""


def schema_fields(schema: dict[str, Any]) -> list[FieldSpec]:
    """Form fields for an object JSON Schema (pydantic style: ``anyOf`` with null = optional)."""
    required = set(schema.get("required") or [])
    fields = []
    for name, prop in (schema.get("properties") or {}).items():
        prop = prop if isinstance(prop, dict) else {}
        branches = [b for b in prop.get("anyOf") or [] if isinstance(b, dict) and b.get("type") != "null"]
        shape = {**(branches[0] if len(branches) == 1 else {}), **{k: v for k, v in prop.items() if k != "anyOf"}}
        kind = "json"
        if "enum" in shape:
            kind = "enum"
        elif shape.get("type") == "string":
            kind = "text"
        elif shape.get("type") in ("integer", "number", "boolean"):
            kind = shape["type"]
        fields.append(
            FieldSpec(
                name=name,
                kind=kind,
                required=name in required,
                default=shape.get("default"),
                options=tuple(shape.get("enum") or ()),
                description=str(shape.get("description") or ""),
            )
        )
    return fields


def collect_arguments(fields: list[FieldSpec], values: dict[str, Any]) -> dict[str, Any]:
    """Arguments from form values: optional fields left empty are omitted; ``json`` fields are
    parsed (ValueError with a plain message when they are not JSON)."""
    args: dict[str, Any] = {}
    for spec in fields:
        value = values.get(spec.name)
        if spec.kind == "json":
            if value is None or not str(value).strip():
                if spec.required:
                    args[spec.name] = None
                continue
            try:
                value = json.loads(value)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{spec.name}: not valid JSON ({exc.msg})") from None
        elif spec.kind == "text" and not spec.required and value == "":
            continue
        elif value is None and not spec.required:
            continue
        args[spec.name] = value
    return args
