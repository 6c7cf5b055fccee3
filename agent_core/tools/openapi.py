"""An OpenAPI 3 document's operations as declared ``http`` tools (pick some, save them as YAML).

Each operation becomes one tool: its ``operationId`` (or method + path) as the name, its summary
as the description, its path and query parameters and its JSON request body's properties as the
arguments (``$ref`` s under ``#/components`` resolved), and a URL template on the document's first
server. Nothing is called here; the tools it writes go through the same checks as any other.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from agent_core.tools.declared import DeclarationError, check_spec

_METHODS = ("get", "post", "put", "patch", "delete")
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")
MAX_REF_DEPTH = 20


@dataclass(frozen=True)
class Operation:
    """One operation of the document, as the import form lists it."""

    name: str
    method: str
    path: str
    summary: str


def _ref(doc: dict[str, Any], node: Any, depth: int = 0) -> Any:
    """``node`` with local ``$ref`` s replaced by what they point at (depth-bounded)."""
    if depth > MAX_REF_DEPTH:
        return {}
    if isinstance(node, dict):
        if isinstance(node.get("$ref"), str):
            target: Any = doc
            for part in node["$ref"].lstrip("#/").split("/"):
                target = target.get(part.replace("~1", "/").replace("~0", "~"), {}) if isinstance(target, dict) else {}
            return _ref(doc, target, depth + 1)
        return {k: _ref(doc, v, depth + 1) for k, v in node.items()}
    if isinstance(node, list):
        return [_ref(doc, item, depth + 1) for item in node]
    return node


def _name(op: dict[str, Any], method: str, path: str) -> str:
    raw = op.get("operationId") or f"{method}_{path}"
    name = _UNSAFE.sub("_", str(raw)).strip("_").replace("__", "_")
    return name[:64] or method


def operations(doc: Any) -> list[Operation]:
    """The operations of an OpenAPI 3 document; ValueError when it is not one."""
    if not isinstance(doc, dict) or not str(doc.get("openapi", "")).startswith("3"):
        raise ValueError("This is not an OpenAPI 3 document (no 'openapi: 3.x' at the top).")
    out = []
    for path, item in (doc.get("paths") or {}).items():
        if not isinstance(item, dict):
            continue
        for method in _METHODS:
            op = item.get(method)
            if isinstance(op, dict):
                summary = str(op.get("summary") or op.get("description") or "").strip()
                out.append(Operation(_name(op, method, path), method.upper(), str(path), summary))
    return out


def _schema(node: Any) -> dict[str, Any]:
    schema = dict(node) if isinstance(node, dict) else {}
    for key in ("xml", "example", "examples", "externalDocs"):
        schema.pop(key, None)
    return schema


def to_tools(doc: Any, names: list[str] | None = None, *, base_url: str | None = None) -> list[dict[str, Any]]:
    """Declared http tool specs for the operations named (None: all), checked."""
    wanted = set(names) if names is not None else None
    picked = [op for op in operations(doc) if wanted is None or op.name in wanted]
    if wanted is not None and len(picked) != len(wanted):
        missing = sorted(wanted - {op.name for op in picked})
        raise ValueError(f"No operation named {', '.join(missing)} in this document.")
    servers = doc.get("servers") or [{}]
    base = (base_url or str(servers[0].get("url") or "")).rstrip("/")
    if not base.startswith(("http://", "https://")):
        raise ValueError("The document names no http(s) server: give the API's base URL.")
    specs = []
    for op in picked:
        item = doc["paths"][op.path]
        raw = _ref(doc, item[op.method.lower()])
        shared = _ref(doc, item.get("parameters") or [])
        properties: dict[str, Any] = {}
        required: list[str] = []
        query: dict[str, str] = {}
        for param in [*shared, *(raw.get("parameters") or [])]:
            if not isinstance(param, dict) or param.get("in") not in ("path", "query"):
                continue
            pname = str(param.get("name"))
            prop = _schema(param.get("schema"))
            if param.get("description"):
                prop["description"] = str(param["description"])
            properties[pname] = prop
            if param.get("required") or param.get("in") == "path":
                required.append(pname)
            if param["in"] == "query":
                query[pname] = "{{" + pname + "}}"
        body: Any = None
        content = ((raw.get("requestBody") or {}).get("content") or {}).get("application/json")
        if isinstance(content, dict):
            body_schema = _schema(content.get("schema"))
            if body_schema.get("type", "object") == "object" and isinstance(body_schema.get("properties"), dict):
                body = {}
                for pname, prop in body_schema["properties"].items():
                    properties[pname] = _schema(prop)
                    body[pname] = "{{" + pname + "}}"
                required += [r for r in body_schema.get("required") or [] if r in properties]
            else:
                properties["body"] = body_schema
                body = "{{body}}"
                if (raw.get("requestBody") or {}).get("required"):
                    required.append("body")
        url = base + re.sub(r"\{([A-Za-z_][A-Za-z0-9_]*)\}", r"{{\1}}", op.path)
        spec: dict[str, Any] = {
            "name": op.name,
            "description": op.summary or f"{op.method} {op.path}",
            "kind": "http",
            "method": op.method,
            "url": url,
            "parameters": {"type": "object", "properties": properties, "required": sorted(set(required))},
        }
        if query:
            spec["query"] = query
        if body is not None:
            spec["body"] = body
        if not spec["parameters"]["required"]:
            del spec["parameters"]["required"]
        try:
            specs.append(check_spec(spec))
        except DeclarationError as exc:
            raise ValueError(f"{op.name} could not be imported: {exc}") from None
    return specs
