"""Tools: the registry (schema inference, three wire formats), the built-in tools, the
workspace they read (your documents: parsing, the persistent index, tables, in ``documents/``;
the sample documents) and form fields from a tool's schema.

May import: the foundation modules (``errors``, ``masking``, ``settings``, ``context``), ``text``
and ``records``. Imported by the answer check, the providers, the loop and everything above.
"""

from agent_core.tools.builtins import BUILTIN_TOOL_NAMES, build_default_registry
from agent_core.tools.registry import Tool, ToolRegistry, make_tool

__all__ = ["BUILTIN_TOOL_NAMES", "Tool", "ToolRegistry", "build_default_registry", "make_tool"]
