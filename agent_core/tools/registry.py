"""Tool registry on an instance: a decorator, lookup, listing and the three wire formats."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypedDict, Unpack, overload

from pydantic import BaseModel

from agent_core.errors import ToolDefinitionError
from agent_core.records.run_record import ToolDefinition
from agent_core.tools.schema import (
    build_args_model,
    model_json_schema,
    parse_docstring,
    validate_arguments,
)

ToolSource = Literal["builtin", "mcp", "declared"]


@dataclass(frozen=True)
class Tool:
    """A registered tool: the function, its schema and its options."""

    name: str
    description: str
    func: Callable[..., Any]
    parameters: dict[str, Any]
    """JSON Schema of the arguments (an object, ``additionalProperties: false``)."""
    args_model: type[BaseModel] | None = None
    """Validates arguments; None when a hand-written ``parameters`` override has no model."""
    tags: tuple[str, ...] = ()
    fallback: str | None = None
    """Name of the tool to use when this one fails after its retries."""
    timeout: float | None = None
    """Per-tool timeout in seconds; None uses the engine setting."""
    source: ToolSource = "builtin"
    """Where the tool comes from: ``builtin`` (this package), ``mcp`` (a server of ``mcp.json``) or
    ``declared`` (a YAML file of ``workspace/tools/``). Recorded per call as ``tool_source``."""
    server: str | None = None
    """The MCP server (or the declared tool's file) it comes from; None for a built-in tool."""
    annotations: dict[str, Any] | None = None
    """MCP tool annotations as the server sent them (hints: ``readOnlyHint``, ``destructiveHint``,
    ``idempotentHint``, ``openWorldHint``, ``title``); never trusted to skip a check."""

    def validate(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Checked and coerced keyword arguments for :attr:`func`."""
        if self.args_model is None:
            return _validate_against_schema(self.name, self.parameters, arguments)
        return validate_arguments(self.args_model, self.name, arguments)

    def to_openai_responses(self) -> dict[str, Any]:
        """Responses API function tool: flat."""
        return {
            "type": "function",
            "name": self.name,
            "description": self.description,
            "parameters": self.parameters,
            "strict": False,
        }

    def to_openai_chat(self) -> dict[str, Any]:
        """Chat Completions tool: nested under ``function``."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }

    def to_anthropic(self) -> dict[str, Any]:
        """Anthropic Messages tool: ``input_schema``."""
        return {"name": self.name, "description": self.description, "input_schema": self.parameters}


def _validate_against_schema(tool: str, schema: dict[str, Any], arguments: dict[str, Any]) -> dict[str, Any]:
    """The check for a tool with only a JSON Schema (an MCP or declared tool, an override): missing
    and unexpected names, and each argument's JSON type and ``enum`` (nested shapes are the tool's)."""
    from agent_core.errors import ToolValidationError

    props = schema.get("properties") or {}
    unexpected = sorted(set(arguments) - set(props))
    missing = sorted(set(schema.get("required") or []) - set(arguments))
    parts = []
    if missing:
        parts.append(f"missing argument(s): {', '.join(missing)}")
    if unexpected and schema.get("additionalProperties", True) is False:
        parts.append(f"unexpected argument(s): {', '.join(unexpected)}")
    for name, value in arguments.items():
        problem = _type_problem(props.get(name), value)
        if problem:
            parts.append(f"{name}: {problem}")
    if parts:
        raise ToolValidationError(f"Invalid arguments for {tool}: " + "; ".join(parts))
    return dict(arguments)


_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
    "null": (type(None),),
}


def _type_problem(prop: Any, value: Any) -> str | None:
    """Why ``value`` does not fit the property schema ``prop`` (type or enum), or None."""
    if not isinstance(prop, dict):
        return None
    branches = [b for b in prop.get("anyOf") or prop.get("oneOf") or [] if isinstance(b, dict)]
    if branches:
        fits = [b for b in branches if _type_problem(b, value) is None]
        return None if fits else _type_problem(branches[0], value)
    if "enum" in prop and isinstance(prop["enum"], list) and value not in prop["enum"]:
        return "must be one of " + ", ".join(json.dumps(v, ensure_ascii=False) for v in prop["enum"])
    wanted = prop.get("type")
    names = [wanted] if isinstance(wanted, str) else [t for t in wanted or [] if isinstance(t, str)]
    if not names:
        return None
    for name in names:
        kinds = _JSON_TYPES.get(name)
        if kinds is None:
            return None  # a type this check does not know: the tool decides
        bool_ok = name == "boolean" or not isinstance(value, bool)  # True is an int in Python, not in JSON
        if isinstance(value, kinds) and bool_ok:
            return None
        if name == "integer" and isinstance(value, float) and value.is_integer():
            return None
    return f"expected {' or '.join(names)}, got {_json_type(value)}"


def _json_type(value: Any) -> str:
    for name, kinds in _JSON_TYPES.items():
        if isinstance(value, kinds) and (name == "boolean" or not isinstance(value, bool)):
            return name
    return type(value).__name__


class ToolRegistry:
    """Tools by name. Create one per agent (or per app); nothing here is global."""

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        for tool in tools:
            self.add(tool)

    def add(self, tool: Tool) -> Tool:
        """Register a ready :class:`Tool`; a duplicate name is an error."""
        if tool.name in self._tools:
            raise ToolDefinitionError(f"a tool named {tool.name!r} is already registered")
        self._tools[tool.name] = tool
        return tool

    @overload
    def tool(self, func: Callable[..., Any], /) -> Callable[..., Any]: ...

    @overload
    def tool(self, **options: Unpack[ToolOptions]) -> Callable[[Callable[..., Any]], Callable[..., Any]]: ...

    def tool(self, func: Callable[..., Any] | None = None, /, **options: Unpack[ToolOptions]) -> Any:  # type: ignore[misc]
        """Decorator, bare (``@registry.tool``) or with options (``@registry.tool(name=…)``).

        The function is returned unchanged, so it stays callable directly.
        """
        if func is not None:
            self.add(make_tool(func))
            return func

        def decorator(f: Callable[..., Any]) -> Callable[..., Any]:
            self.add(make_tool(f, **options))
            return f

        return decorator

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def names(self) -> list[str]:
        return list(self._tools)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    def subset(self, names: Iterable[str]) -> ToolRegistry:
        """A registry with only ``names`` (in registry order); fallbacks come along if present."""
        wanted = set(names)
        unknown = wanted - set(self._tools)
        if unknown:
            raise ToolDefinitionError(f"unknown tool(s): {', '.join(sorted(unknown))}")
        return ToolRegistry(t for t in self._tools.values() if t.name in wanted)

    def check_fallbacks(self) -> None:
        """Raise when a tool names a fallback that is not registered."""
        for tool in self._tools.values():
            if tool.fallback and tool.fallback not in self._tools:
                raise ToolDefinitionError(
                    f"tool {tool.name!r} falls back to {tool.fallback!r}, which is not registered"
                )

    def to_openai_responses(self) -> list[dict[str, Any]]:
        return [t.to_openai_responses() for t in self]

    def to_openai_chat(self) -> list[dict[str, Any]]:
        return [t.to_openai_chat() for t in self]

    def to_anthropic(self) -> list[dict[str, Any]]:
        return [t.to_anthropic() for t in self]


class ToolOptions(TypedDict, total=False):
    """What a tool may be given besides its function (``@registry.tool(…)``, :func:`make_tool`);
    whatever is left out is inferred from the function."""

    name: str | None
    description: str | None
    parameters: dict[str, Any] | None
    """A JSON Schema for the model instead of the inferred one (the signature still validates)."""
    tags: Iterable[str]
    fallback: str | None
    """The tool to run when this one's retries are used up."""
    timeout: float | None
    """Seconds one call may take (default: ``TOOL_TIMEOUT``)."""


def make_tool(func: Callable[..., Any], **options: Unpack[ToolOptions]) -> Tool:
    """Build a :class:`Tool` from a function, inferring what is not given."""
    name, description, parameters = options.get("name"), options.get("description"), options.get("parameters")
    tool_name = name or func.__name__
    if not tool_name.replace("_", "").replace("-", "").isalnum() or len(tool_name) > 64:
        raise ToolDefinitionError(f"tool name {tool_name!r}: use letters, digits, _ or - (≤ 64)")
    doc_description, _ = parse_docstring(func.__doc__)
    args_model = build_args_model(func, tool_name)
    schema = parameters if parameters is not None else model_json_schema(args_model)
    return Tool(
        name=tool_name,
        description=description or doc_description or tool_name.replace("_", " "),
        func=func,
        parameters=schema,
        # An override schema is for the model; the signature still validates what we can.
        args_model=args_model,
        tags=tuple(options.get("tags", ())),
        fallback=options.get("fallback"),
        timeout=options.get("timeout"),
    )


def tool_definitions(tools: Iterable[Tool]) -> list[ToolDefinition]:
    """The tools that are not built in, as a record keeps them (a replay rebuilds them from it)."""
    out: list[ToolDefinition] = []
    for tool in tools:
        if tool.source == "builtin":
            continue
        entry: ToolDefinition = {
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.parameters,
            "tool_source": tool.source,
        }
        if tool.server:
            entry["server"] = tool.server
        if tool.annotations:
            entry["annotations"] = tool.annotations
        out.append(entry)
    return out


def recorded_stand_in(definition: Mapping[str, Any]) -> Tool | None:
    """A tool rebuilt from a record's ``tool_definitions`` entry: same name, description, schema and
    source, but no server behind it (a replay answers it from the recording; a live call says so)."""
    name = definition.get("name")
    if not isinstance(name, str) or not name:
        return None
    source = definition.get("tool_source")
    server = definition.get("server")
    where = f"the MCP server {server!r}" if source == "mcp" and server else "its definition"

    def unavailable(**_: Any) -> str:
        raise RuntimeError(f"{name} is not available here ({where} is not loaded); only its recorded results are")

    params = definition.get("parameters")
    annotations = definition.get("annotations")
    return Tool(
        name=name,
        description=str(definition.get("description") or name),
        func=unavailable,
        parameters=params if isinstance(params, dict) else {"type": "object", "properties": {}},
        source=source if source in ("mcp", "declared") else "declared",
        server=server if isinstance(server, str) else None,
        annotations=annotations if isinstance(annotations, dict) else None,
    )
