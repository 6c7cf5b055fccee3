"""Tool registry on an instance: a decorator, lookup, listing and the three wire formats."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, TypedDict, Unpack, overload

from pydantic import BaseModel

from agent_core.errors import ToolDefinitionError
from agent_core.tools.schema import (
    build_args_model,
    model_json_schema,
    parse_docstring,
    validate_arguments,
)


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
    """Minimal check for override schemas: unexpected / missing names (types left to the tool)."""
    from agent_core.errors import ToolValidationError

    props = schema.get("properties", {})
    unexpected = sorted(set(arguments) - set(props))
    missing = sorted(set(schema.get("required", [])) - set(arguments))
    parts = []
    if missing:
        parts.append(f"missing argument(s): {', '.join(missing)}")
    if unexpected and schema.get("additionalProperties", True) is False:
        parts.append(f"unexpected argument(s): {', '.join(unexpected)}")
    if parts:
        raise ToolValidationError(f"Invalid arguments for {tool}: " + "; ".join(parts))
    return dict(arguments)


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
