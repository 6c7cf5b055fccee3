"""``python -m agent_core tools list|call|check|import``: the tools a run can get, from the shell."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from agent_core.cli.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from agent_core.settings import Settings


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    tools = sub.add_parser("tools", help="the tools a run can get: built-in, declared in YAML, from MCP servers")
    actions = tools.add_subparsers(dest="tools_command", required=True)
    listing = actions.add_parser("list", help="every tool: name, source, server, annotations, enabled")
    listing.add_argument("--json", action="store_true", help="one JSON object per line")
    call = actions.add_parser("call", help="call one tool through the dispatcher and print its log entry")
    call.add_argument("name", help="the tool's name (an MCP tool is server__tool)")
    call.add_argument("--args", default="{}", help='the arguments as a JSON object, e.g. \'{"sku": "A-100"}\'')
    actions.add_parser("check", help="connect every MCP server afresh and print its health")
    imp = actions.add_parser("import", help="declare http tools from an OpenAPI 3 file (workspace/tools/NAME.yaml)")
    imp.add_argument("file", help="the OpenAPI document (.yaml or .json)")
    imp.add_argument("--operations", help="comma-separated operation names to import (default: all)")
    imp.add_argument("--base-url", help="the API's base URL when the document names none")


def cmd_tools(args: argparse.Namespace, settings: Settings) -> int:
    """Run one ``tools`` subcommand; the exit code."""
    if args.tools_command == "list":
        return _list(args, settings)
    if args.tools_command == "call":
        return _call(args, settings)
    if args.tools_command == "check":
        return _check(settings)
    return _import(args, settings)


def _list(args: argparse.Namespace, settings: Settings) -> int:
    from agent_core.tools.builtins import BUILTIN_TOOL_NAMES, build_builtin_registry
    from agent_core.tools.catalog import cost_warning, describe, load_catalog

    builtins = list(build_builtin_registry(settings))
    catalog = load_catalog(settings, builtin_names=BUILTIN_TOOL_NAMES)
    rows = [describe(t) for t in builtins] + [
        describe(t, enabled=t.name not in catalog.disabled) for t in catalog.tools
    ]
    if args.json:
        for row in rows:
            sys.stdout.write(json.dumps(row, ensure_ascii=False) + "\n")
    else:
        header = f"{'name':<34} {'source':<9} {'server':<16} {'on':<3} {'tokens':>6}  notes"
        lines = [header, "-" * len(header)]
        for row in rows:
            lines.append(
                f"{row['name']:<34} {row['source']:<9} {row['server'] or '':<16} {'yes' if row['enabled'] else 'no':<3} "
                f"{row['tokens']:>6}  {', '.join(row['badges'])}"
            )
        sys.stdout.write("\n".join(lines) + "\n")
    for problem in catalog.problems:
        sys.stderr.write(f"warning: {problem}\n")
    for name, health in catalog.health.items():
        if not health.ok:
            sys.stderr.write(f"warning: MCP server {name}: {health.sentence}\n")
    warning = cost_warning(builtins + catalog.enabled())
    if warning:
        sys.stderr.write(f"warning: {warning}\n")
    return EXIT_OK


def _call(args: argparse.Namespace, settings: Settings) -> int:
    from agent_core.run.dispatcher import Dispatcher
    from agent_core.tools.builtins import build_default_registry

    try:
        arguments = json.loads(args.args)
    except json.JSONDecodeError as exc:
        sys.stderr.write(f"error: --args is not JSON ({exc.msg})\n")
        return EXIT_USAGE
    registry = build_default_registry(settings)
    if args.name not in registry:
        sys.stderr.write(f"error: no tool named {args.name!r} (python -m agent_core tools list shows them)\n")
        return EXIT_USAGE
    entry = Dispatcher(registry, settings).call_direct(args.name, arguments)
    entry["harness_rule"] = "called directly from the command line (tools call)"
    sys.stdout.write(json.dumps(entry, ensure_ascii=False, indent=2) + "\n")
    return EXIT_OK if entry["success"] else EXIT_FAILED


def _check(settings: Settings) -> int:
    from agent_core.tools import mcp_config
    from agent_core.tools.catalog import load_catalog

    servers = mcp_config.load(settings)
    if not servers.servers and not servers.problems:
        sys.stdout.write(f"no MCP servers in {settings.mcp_config_path}\n")
        return EXIT_OK
    catalog = load_catalog(settings, check=True)
    failed = bool(catalog.problems)
    for problem in catalog.problems:
        sys.stdout.write(f"✗ {problem}\n")
    for config in catalog.servers:
        if config.disabled:
            sys.stdout.write(f"- {config.name}: disabled\n")
            continue
        health = catalog.health[config.name]
        failed = failed or not health.ok
        mark = "✓" if health.ok else "✗"
        facts = [config.transport, f"{health.seconds:.2f} s"]
        if health.ok:
            facts += [f"protocol {health.protocol_version}", f"{len(health.tools)} tools", f"~{health.tokens} tokens"]
        sys.stdout.write(f"{mark} {config.name} ({', '.join(facts)}): {health.sentence}\n")
        if health.stderr_tail and not health.ok:
            tail = health.stderr_tail.splitlines()[-3:]
            sys.stdout.write("".join(f"    stderr: {line}\n" for line in tail))
    return EXIT_FAILED if failed else EXIT_OK


def _import(args: argparse.Namespace, settings: Settings) -> int:
    import yaml

    from agent_core.tools import declared, openapi

    path = Path(args.file)
    try:
        text = path.read_text(encoding="utf-8")
        doc = yaml.safe_load(text)
        names = [n.strip() for n in args.operations.split(",") if n.strip()] if args.operations else None
        specs = openapi.to_tools(doc, names, base_url=args.base_url)
    except (OSError, yaml.YAMLError, ValueError) as exc:
        sys.stderr.write(f"error: {exc}\n")
        return EXIT_USAGE
    folder = settings.declared_tools_dir
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{path.stem}.yaml"
    target.write_text(declared.dump(specs), encoding="utf-8")
    sys.stdout.write(f"declared {len(specs)} tools in {target}: {', '.join(s['name'] for s in specs)}\n")
    return EXIT_OK
