"""The engine's built-in tools, registered on a fresh :class:`ToolRegistry` per call.

``build_default_registry(settings)`` binds the file tools to ``settings.workspace_dir`` and the
flaky ``search_web`` to ``settings.search_web_failure_rate``, then adds the person's own tools
(declared in YAML, MCP servers: :mod:`agent_core.tools.catalog`). Each call builds a new registry,
so each Streamlit session or test gets its own; only the MCP sessions behind the MCP tools are
shared by the process (:mod:`agent_core.tools.mcp`).
"""

from __future__ import annotations

import logging
import random

from agent_core.settings import Settings
from agent_core.text.lang import language_of
from agent_core.tools.calculator import calculate
from agent_core.tools.documents.tools import make_table_tool
from agent_core.tools.documents.workspace import Workspace
from agent_core.tools.files import make_file_tools
from agent_core.tools.knowledge import FACTS_FILE, make_lookup, word_count
from agent_core.tools.registry import ToolRegistry, make_tool
from agent_core.tools.simulated import get_weather, make_search_tools
from agent_core.tools.units import convert_measurement

log = logging.getLogger("agent_core.tools.builtins")

BUILTIN_TOOL_NAMES: tuple[str, ...] = (
    "calculator",
    "read_file",
    "lookup",
    "word_count",
    "search_documents",
    "get_weather",
    "search_web",
    "search_cached",
    "convert_measurement",
    "query_table",
)


def calculator(expression: str) -> str:
    """Evaluate arithmetic: numbers and + - * / ( ) ** % only, e.g. '(24*7)+100' or '15% * 240'.

    Args:
        expression: The arithmetic expression, e.g. '24 * 7'. Commas only as thousands
            separators ('1,000'); a % after a number is percent ('15% * 240' is 36), between
            two numbers the remainder ('17 % 5' is 2).
    """
    return calculate(expression)


def build_default_registry(
    settings: Settings, *, rng: random.Random | None = None, external: bool = True
) -> ToolRegistry:
    """A new registry with all built-in tools, then the enabled declared and MCP tools.

    Args:
        settings: Supplies the workspace folder and the search_web failure rate.
        rng: Random source for search_web's simulated failures (seed it in tests).
        external: False: the built-in tools only (scripted demos; no server is contacted).
    """
    registry = build_builtin_registry(settings, rng=rng)
    if external:
        from agent_core.tools.catalog import add_enabled, load_catalog

        catalog = load_catalog(settings, builtin_names=BUILTIN_TOOL_NAMES)
        add_enabled(registry, catalog)
        for problem in catalog.problems:
            log.warning("tools: %s", problem)
        for name, health in catalog.health.items():
            if not health.ok:
                log.warning("MCP server %s: %s", name, health.sentence)
    return registry


SEARCH_LISTS = 15
"""The most file names ``search_documents``' description lists."""


LANGUAGE_CHARS = 4000
"""How much of a document's beginning tells its language (:func:`_language`)."""


_LANGUAGES: dict[tuple[str, int, int], str | None] = {}
"""Each document's language by (path, mtime, size): the registry is built for every run, and the
documents are read again only when they change."""


def _language(workspace: Workspace, name: str) -> str | None:
    """The language of document ``name`` by the letters of its beginning
    (:func:`~agent_core.text.lang.language_of`); None when unknown or unreadable."""
    path = workspace.root / name
    try:
        stat = path.stat()
        key = (str(path), stat.st_mtime_ns, stat.st_size)
        if key not in _LANGUAGES:
            text = workspace.document_text(name)
            if text is None:
                with open(path, encoding="utf-8", errors="ignore") as file:
                    text = file.read(LANGUAGE_CHARS)
            _LANGUAGES[key] = language_of(text[:LANGUAGE_CHARS])
    except (OSError, ValueError):  # DocumentError is a ValueError
        return None
    return _LANGUAGES[key]


def _search_description(workspace: Workspace) -> str:
    """``search_documents``' description, naming the files it searches: what the model reads to
    know the workspace holds the user's policy or price list, rather than a web page.

    When the documents are in more than one language, it names each one's and asks for the query
    in the document's language: the search matches words, and a question in Korean searched in
    Korean found only the Korean documents, never the English one that answered it."""
    names = [n for n in workspace.names() if n != FACTS_FILE]
    if not names:
        return (
            "Search the workspace documents (none yet); returns the best passages with their file and page or section."
        )
    shown = names[:SEARCH_LISTS]
    more = f" and {len(names) - SEARCH_LISTS} more" if len(names) > SEARCH_LISTS else ""
    languages = {name: _language(workspace, name) for name in shown}
    if len(set(languages.values()) - {None}) < 2:
        listed = ", ".join(shown) + more
        return (
            f"Search the documents in the user's workspace ({listed}); returns the best passages with their "
            "file and page or section."
        )
    groups: dict[str, list[str]] = {}
    for name, language in languages.items():
        groups.setdefault(f"in {language}" if language else "other", []).append(name)
    listed = "; ".join(f"{group}: {', '.join(files)}" for group, files in groups.items()) + more
    return (
        f"Search the documents in the user's workspace ({listed}); returns the best passages with their "
        "file and page or section. The search matches words: write the query in the language of the "
        "document that has the answer."
    )


def build_builtin_registry(settings: Settings, *, rng: random.Random | None = None) -> ToolRegistry:
    """A new registry with the built-in tools only."""
    registry = ToolRegistry()
    documents = Workspace.for_settings(settings)
    read_file, search_documents = make_file_tools(settings.workspace_dir, documents)
    search_web, search_cached = make_search_tools(settings.search_web_failure_rate, rng)

    registry.tool(tags=("math",))(calculator)
    registry.tool(tags=("files",))(read_file)
    lookup = make_lookup(settings.workspace_dir)
    if lookup is not None:  # the workspace's facts.md: no file, no lookup tool
        registry.add(make_tool(lookup, name="lookup", tags=("knowledge",)))
    registry.tool(tags=("text",))(word_count)
    registry.add(make_tool(search_documents, description=_search_description(documents), tags=("files", "search")))
    registry.tool(tags=("simulated",))(get_weather)
    registry.add(make_tool(search_web, tags=("simulated", "search"), fallback="search_cached"))
    registry.add(make_tool(search_cached, tags=("simulated", "search")))
    registry.tool(tags=("math",))(convert_measurement)
    table_tool = make_table_tool(documents)
    if table_tool is not None:  # a workspace with no table (CSV, JSON records, DOCX table) has none
        registry.add(table_tool)
    registry.check_fallbacks()
    return registry
