"""A declared tool as the Tools page's form fields, and back (pure code: the page draws the widgets).

The form edits the spec in place: fields left as they were give back the very same mapping (keys,
order and values), so a tool opened and saved unchanged writes the same YAML; keys the form does
not show (``timeout``, ``annotations``, ``enabled`` …) are kept as they were.
"""

from __future__ import annotations

from typing import Any

import yaml

from agent_core.tools.declared import DeclarationError, check_spec

TEXT_FIELDS = ("name", "description", "kind", "result", "method", "url", "result_path")
DATA_FIELDS = ("parameters", "query", "headers", "body")
"""Shown as YAML text areas."""

NEW_TOOL: dict[str, Any] = {
    "name": "",
    "description": "",
    "kind": "mock",
    "parameters": {"type": "object", "properties": {}},
    "result": "",
}


def to_fields(spec: dict[str, Any]) -> dict[str, str]:
    """The form's text for each field ('' for a field the spec does not have)."""
    fields = {key: "" if spec.get(key) is None else str(spec[key]) for key in TEXT_FIELDS}
    for key in DATA_FIELDS:
        value = spec.get(key)
        fields[key] = "" if value is None else yaml.safe_dump(value, sort_keys=False, allow_unicode=True).strip()
    return fields


def from_fields(
    original: dict[str, Any], fields: dict[str, str], *, builtin_names: tuple[str, ...] = ()
) -> dict[str, Any]:
    """The spec after the form: ``original`` with the fields' values (an emptied field removes its
    key), checked; :class:`DeclarationError` with what to fix."""
    spec = dict(original)
    for key in TEXT_FIELDS:
        text = fields.get(key, "")
        text = text.strip() if key not in ("result",) else text
        _put(spec, key, text or None, original)
    for key in DATA_FIELDS:
        text = fields.get(key, "").strip()
        if not text:
            _put(spec, key, None, original)
            continue
        try:
            value = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise DeclarationError(f"{key} is not readable YAML ({str(exc).splitlines()[0]}).") from None
        _put(spec, key, value, original)
    kind = spec.get("kind")
    for key in ("result",) if kind == "http" else ("method", "url", "query", "headers", "body", "result_path"):
        spec.pop(key, None)  # what the other kind uses
    return check_spec(spec, builtin_names=builtin_names)


def _put(spec: dict[str, Any], key: str, value: Any, original: dict[str, Any]) -> None:
    if value is None:
        spec.pop(key, None)
    elif key in original and _same(original[key], value):
        spec[key] = original[key]  # unchanged: keep the original object (and its type)
    else:
        spec[key] = value


def _same(old: Any, new: Any) -> bool:
    return old == new or (not isinstance(old, (dict, list)) and str(old) == str(new))
