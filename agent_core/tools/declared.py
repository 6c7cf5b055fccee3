"""Tools declared without code: YAML files in ``<workspace>/tools/`` (and the Tools page's form).

One file holds one tool, or several under ``tools:`` (an OpenAPI import writes one file per API)::

    name: check_stock
    description: How many of an item are in stock, by its code.
    kind: mock                      # or http
    parameters:                     # JSON Schema of the arguments
      type: object
      properties:
        sku: {type: string, description: The item code, e.g. A-100}
      required: [sku]
    result: "{{sku}}: 12 in stock"  # mock: a template of the result

    kind: http
    method: GET
    url: https://api.example.com/stock/{{sku}}     # the host is fixed; arguments fill the path
    query: {warehouse: "{{warehouse}}"}            # left out when the argument is not given
    headers: {Authorization: "Bearer ${STOCK_API_TOKEN}"}   # secrets by their .env name only
    body: {sku: "{{sku}}"}                         # JSON; "{{x}}" alone keeps x's type
    result_path: data.count                        # what to give the model (default: the body)

``{{argument}}`` is the only thing a template can do: it is replaced by the argument's value
(URL-encoded in a URL). Nothing a person or a model types is ever evaluated. Calls go out
through :mod:`agent_core.tools.http_guard` (allowed hosts, public addresses only).

A spec stays the plain mapping its YAML holds (key order and keys this module does not know are
kept), so a tool opened in the form and saved unchanged writes the same YAML back.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import yaml

from agent_core.errors import TransientToolError
from agent_core.masking import is_secret_key
from agent_core.settings import Settings
from agent_core.tools.mcp_config import ConfigError, resolve
from agent_core.tools.registry import Tool

KINDS = ("mock", "http")
METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
NAME = re.compile(r"^(?!.*__)[A-Za-z0-9_-]{1,64}$")
PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
_ONLY_PLACEHOLDER = re.compile(r"^\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}$")
_SECRET_HEADERS = ("authorization", "proxy-authorization", "cookie", "x-api-key", "api-key")
MAX_FILE_BYTES = 1_000_000


class DeclarationError(ValueError):
    """A declared tool cannot be used as written; the message says what to change."""


@dataclass(frozen=True)
class Declared:
    """One declared tool: its spec (the YAML mapping) and the file it came from."""

    spec: dict[str, Any]
    file: Path

    @property
    def name(self) -> str:
        return str(self.spec.get("name", ""))


def check_spec(spec: Any, *, builtin_names: tuple[str, ...] = ()) -> dict[str, Any]:
    """The spec if it can be used; :class:`DeclarationError` naming the first problem."""
    if not isinstance(spec, dict):
        raise DeclarationError("A tool must be a mapping with name, description, kind and parameters.")
    name = spec.get("name")
    if not isinstance(name, str) or not NAME.match(name):
        raise DeclarationError(f"Tool name {name!r}: use letters, digits, _ or - (at most 64, no '__').")
    if name in builtin_names:
        raise DeclarationError(f"{name}: a built-in tool has this name; choose another.")
    where = f"{name}:"
    if not isinstance(spec.get("description"), str) or not spec["description"].strip():
        raise DeclarationError(f"{where} say what the tool does in description (the model reads it).")
    kind = spec.get("kind")
    if kind not in KINDS:
        raise DeclarationError(f"{where} kind must be one of {', '.join(KINDS)} (got {kind!r}).")
    params = spec.get("parameters", {"type": "object", "properties": {}})
    if not isinstance(params, dict) or params.get("type", "object") != "object":
        raise DeclarationError(f"{where} parameters must be a JSON Schema object (type: object).")
    props = params.get("properties") or {}
    if not isinstance(props, dict):
        raise DeclarationError(f"{where} parameters.properties must be a mapping.")
    known = set(props)
    if kind == "mock":
        if not isinstance(spec.get("result"), str):
            raise DeclarationError(f"{where} a mock tool needs result: a text with {{{{argument}}}} placeholders.")
        _check_placeholders(where, spec["result"], known)
    else:
        url = spec.get("url")
        if not isinstance(url, str):
            raise DeclarationError(f"{where} an http tool needs url.")
        if "{{" in url.split("//", 1)[-1].split("/", 1)[0]:
            raise DeclarationError(f"{where} the host of url must be written out; arguments may fill only the path.")
        parts = urlsplit(url.split("{{", 1)[0])
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise DeclarationError(f"{where} url must start with http:// or https:// and a host.")
        _check_placeholders(where, url, known)
        method = str(spec.get("method", "GET")).upper()
        if method not in METHODS:
            raise DeclarationError(f"{where} method must be one of {', '.join(METHODS)}.")
        for key, value in (spec.get("headers") or {}).items():
            if not isinstance(value, str) or "{{" in value or "\n" in value:
                raise DeclarationError(f"{where} header {key}: a fixed text or ${{VARIABLE}}, no arguments.")
            secretish = is_secret_key(str(key)) or str(key).lower() in _SECRET_HEADERS
            if secretish and "${" not in value:
                raise DeclarationError(
                    f"{where} header {key} looks secret: name it by its .env variable, e.g. Bearer ${{MY_TOKEN}}."
                )
        for part in ("query", "body"):
            _check_placeholders(where, json.dumps(spec.get(part)), known)
        if spec.get("result_path") is not None and not isinstance(spec["result_path"], str):
            raise DeclarationError(f"{where} result_path must be a text such as data.items[0].name.")
    return spec


def _check_placeholders(where: str, text: str, known: set[str]) -> None:
    unknown = sorted({m.group(1) for m in PLACEHOLDER.finditer(text)} - known)
    if unknown:
        raise DeclarationError(f"{where} {{{{{unknown[0]}}}}} is not one of its parameters.")


# --- Files ----------------------------------------------------------------------------------


def load_file(path: Path) -> list[dict[str, Any]]:
    """The tool specs of one YAML file (unchecked); DeclarationError when it is not YAML."""
    if path.stat().st_size > MAX_FILE_BYTES:
        raise DeclarationError(f"{path.name} is larger than {MAX_FILE_BYTES // 1000} kB.")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise DeclarationError(f"{path.name} is not readable YAML ({str(exc).splitlines()[0]}).") from None
    if isinstance(data, dict) and isinstance(data.get("tools"), list):
        return list(data["tools"])
    return [data]


def load_all(settings: Settings, *, builtin_names: tuple[str, ...] = ()) -> tuple[list[Declared], list[str]]:
    """Every declared tool of ``<workspace>/tools/*.yaml``, and a sentence for each that cannot be used."""
    folder = settings.declared_tools_dir
    found: list[Declared] = []
    problems: list[str] = []
    names: set[str] = set()
    if not folder.is_dir():
        return found, problems
    for path in sorted([*folder.glob("*.yaml"), *folder.glob("*.yml")]):
        try:
            specs = load_file(path)
        except (OSError, DeclarationError) as exc:
            problems.append(str(exc))
            continue
        for spec in specs:
            try:
                check_spec(spec, builtin_names=builtin_names)
            except DeclarationError as exc:
                problems.append(f"{path.name}: {exc}")
                continue
            if spec["name"] in names:
                problems.append(f"{path.name}: another file already declares {spec['name']}.")
                continue
            names.add(spec["name"])
            found.append(Declared(spec, path))
    return found, problems


def dump(specs: list[dict[str, Any]]) -> str:
    """YAML text of one tool, or of several under ``tools:`` (key order kept)."""
    data: Any = specs[0] if len(specs) == 1 else {"tools": specs}
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)


def save_tool(settings: Settings, spec: dict[str, Any], *, file: Path | None = None) -> Path:
    """Write one tool: into ``file`` in place of the tool of the same name, or to ``<name>.yaml``."""
    check_spec(spec)
    folder = settings.declared_tools_dir
    folder.mkdir(parents=True, exist_ok=True)
    path = file or folder / f"{spec['name']}.yaml"
    specs = load_file(path) if path.exists() else []
    replaced = [spec if isinstance(s, dict) and s.get("name") == spec["name"] else s for s in specs]
    if spec not in replaced:
        replaced.append(spec)
    path.write_text(dump(replaced), encoding="utf-8")
    return path


def remove_tool(settings: Settings, name: str) -> bool:
    """Remove a declared tool from its file (the file goes when it was the last)."""
    for declared in load_all(settings)[0]:
        if declared.name == name:
            rest = [s for s in load_file(declared.file) if not (isinstance(s, dict) and s.get("name") == name)]
            if rest:
                declared.file.write_text(dump(rest), encoding="utf-8")
            else:
                declared.file.unlink()
            return True
    return False


# --- Running one ----------------------------------------------------------------------------


def fill(template: str, arguments: Mapping[str, Any], *, encode: bool = False) -> str:
    """``template`` with each ``{{name}}`` replaced by the argument (URL-encoded with ``encode``)."""

    def value(match: re.Match[str]) -> str:
        item = arguments.get(match.group(1))
        text = "" if item is None else item if isinstance(item, str) else json.dumps(item, ensure_ascii=False)
        return quote(text, safe="") if encode else text

    return PLACEHOLDER.sub(value, template)


def fill_data(template: Any, arguments: Mapping[str, Any]) -> Any:
    """A JSON template filled in: ``"{{x}}"`` alone is x's value (left out when x is not given)."""
    if isinstance(template, dict):
        out = {}
        for key, item in template.items():
            if isinstance(item, str) and (m := _ONLY_PLACEHOLDER.match(item)) and m.group(1) not in arguments:
                continue
            out[key] = fill_data(item, arguments)
        return out
    if isinstance(template, list):
        return [fill_data(item, arguments) for item in template]
    if isinstance(template, str):
        m = _ONLY_PLACEHOLDER.match(template)
        return arguments.get(m.group(1)) if m else fill(template, arguments)
    return template


_PATH_PART = re.compile(r"\.?([^.\[\]]+)|\[(\d+)\]|\['([^']*)'\]")


def pick(data: Any, path: str) -> Any:
    """``data`` at a simple JSON path: ``data.items[0].name`` (a leading ``$.`` is allowed)."""
    rest = path.strip()
    rest = rest[1:] if rest.startswith("$") else rest
    current = data
    while rest:
        m = _PATH_PART.match(rest)
        if not m or m.end() == 0:
            raise DeclarationError(f"result_path {path!r} is not a path such as data.items[0].name.")
        key, index, quoted = m.groups()
        rest = rest[m.end() :]
        try:
            current = current[int(index)] if index is not None else current[quoted if quoted is not None else key]
        except (KeyError, IndexError, TypeError):
            raise RuntimeError(f"the answer has nothing at {path}") from None
    return current


def make_tool(declared: Declared, settings: Settings) -> Tool:
    """The registry tool of a declared spec (checked before)."""
    spec = declared.spec
    params = dict(spec.get("parameters") or {"type": "object", "properties": {}})
    params.setdefault("properties", {})
    if spec["kind"] == "mock":
        template = str(spec["result"])

        def run(**arguments: Any) -> str:
            return fill(template, arguments)

    else:

        def run(**arguments: Any) -> str:
            return call_http(spec, arguments, settings)

    run.__name__ = spec["name"]
    annotations = spec.get("annotations") if isinstance(spec.get("annotations"), dict) else None
    if annotations is None and spec["kind"] == "mock":
        annotations = {"readOnlyHint": True, "openWorldHint": False}
    timeout = spec.get("timeout")
    return Tool(
        name=spec["name"],
        description=str(spec["description"]).strip(),
        func=run,
        parameters=params,
        args_model=None,
        tags=("declared", str(spec["kind"])),
        timeout=float(timeout) if isinstance(timeout, (int, float)) and not isinstance(timeout, bool) else None,
        source="declared",
        server=declared.file.name,
        annotations=annotations,
    )


def call_http(spec: Mapping[str, Any], arguments: Mapping[str, Any], settings: Settings) -> str:
    """Make the declared request and return what the model should read."""
    from agent_core.tools.http_guard import Refused, fetch

    try:
        headers = {str(k): resolve(str(v)) for k, v in (spec.get("headers") or {}).items()}
    except ConfigError as exc:
        raise RuntimeError(str(exc)) from None
    query = fill_data(spec.get("query") or {}, arguments)
    body = fill_data(spec["body"], arguments) if spec.get("body") is not None else None
    timeout = spec.get("timeout")
    try:
        reply = fetch(
            str(spec.get("method", "GET")),
            fill(str(spec["url"]), arguments, encode=True),
            settings,
            headers=headers,
            params={k: v if isinstance(v, str) else json.dumps(v) for k, v in query.items()} or None,
            json_body=body,
            timeout=float(timeout) if isinstance(timeout, (int, float)) else settings.tool_timeout,
        )
    except Refused as exc:
        raise RuntimeError(str(exc)) from None
    if reply.status == 429 or reply.status >= 500:
        raise TransientToolError(f"the API answered HTTP {reply.status}: {reply.text[:300]}")
    if reply.status >= 400:
        raise RuntimeError(f"the API answered HTTP {reply.status}: {reply.text[:300]}")
    path = spec.get("result_path")
    if not path:
        return reply.text
    try:
        data = json.loads(reply.text)
    except json.JSONDecodeError:
        raise RuntimeError("the API's answer is not JSON, so result_path cannot be read") from None
    value = pick(data, str(path))
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
