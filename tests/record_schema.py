"""Validate run records against docs/run.schema.json (used by many tests)."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import jsonschema

SCHEMA_PATH = Path(__file__).resolve().parent.parent / "docs" / "run.schema.json"


@lru_cache(maxsize=1)
def _validator() -> jsonschema.Draft202012Validator:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())


def assert_valid_record(record: dict[str, Any]) -> None:
    """Raise AssertionError listing every schema violation."""
    errors = sorted(_validator().iter_errors(record), key=lambda e: list(e.path))
    if errors:
        lines = [f"{'/'.join(str(p) for p in e.path) or '<root>'}: {e.message}" for e in errors[:20]]
        raise AssertionError("record does not match docs/run.schema.json:\n" + "\n".join(lines))
