"""Tools: the registry (schema inference, three wire formats) and the built-in tools."""

from agent_core.tools.builtins import BUILTIN_TOOL_NAMES, build_default_registry
from agent_core.tools.registry import Tool, ToolRegistry, make_tool

__all__ = ["BUILTIN_TOOL_NAMES", "Tool", "ToolRegistry", "build_default_registry", "make_tool"]
