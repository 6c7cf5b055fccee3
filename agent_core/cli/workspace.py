"""``python -m agent_core workspace list|add|remove|search``: the person's documents from the shell.

The same operations as the Workspace page (:class:`agent_core.tools.documents.workspace.Workspace`);
bad input (an unsupported or corrupt file, a name with a folder in it, a name already taken)
exits 2 with one plain line on stderr, and nothing is changed.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agent_core.cli.common import EXIT_OK, EXIT_USAGE, usage_error
from agent_core.settings import Settings


def add_parser(sub: Any) -> None:
    """The ``workspace`` command and its four subcommands."""
    ws = sub.add_parser("workspace", help="your documents: list, add, remove and search them")
    wsub = ws.add_subparsers(dest="workspace_command", required=True)
    listing = wsub.add_parser("list", help="the documents, with kind, size, pages or sections and notes")
    listing.add_argument("--json", action="store_true", help="print one JSON object per document")
    add = wsub.add_parser("add", help="add files (.pdf, .docx, .md, .txt, .csv, .json) and index them")
    add.add_argument("files", nargs="+", metavar="FILE", help="files to add")
    same = add.add_mutually_exclusive_group()
    same.add_argument("--replace", action="store_true", help="replace a different file of the same name")
    same.add_argument("--keep-both", action="store_true", help="keep both: the new one as 'name (2).ext'")
    remove = wsub.add_parser("remove", help="remove a document and its index rows")
    remove.add_argument("name", metavar="NAME", help="the document's name, as `workspace list` shows it")
    search = wsub.add_parser("search", help="search the documents: hits with file, page or section, snippet, score")
    search.add_argument("query", metavar="QUERY", help="what to look for, in English or Korean")
    search.add_argument("--limit", type=int, default=5, help="how many hits (1-50, default 5)")
    search.add_argument("--json", action="store_true", help="print the hits as a JSON list")


def _size(n: int) -> str:
    return f"{n / 1024 / 1024:.1f} MB" if n >= 1024 * 1024 else f"{n / 1024:.0f} KB" if n >= 1024 else f"{n} B"


def cmd_workspace(args: argparse.Namespace, settings: Settings) -> int:
    """Run one ``workspace`` subcommand."""
    from agent_core.tools.documents.parse import DocumentError
    from agent_core.tools.documents.samples import sample_names
    from agent_core.tools.documents.workspace import OnConflict, Workspace

    workspace = Workspace.for_settings(settings)
    command = args.workspace_command
    try:
        if command == "add":
            code = EXIT_OK
            mode: OnConflict = "replace" if args.replace else "keep_both" if args.keep_both else "ask"
            for file in args.files:
                try:
                    added = workspace.add_path(Path(file), on_conflict=mode)
                except DocumentError as exc:
                    sys.stderr.write(f"error: {exc}\n")
                    code = EXIT_USAGE
                    continue
                if added.status == "conflict":
                    sys.stderr.write(
                        f"error: a different file named {added.name} is already there: "
                        "add again with --replace or --keep-both\n"
                    )
                    code = EXIT_USAGE
                else:
                    sys.stdout.write(added.message + "\n")
            return code
        if command == "remove":
            workspace.remove(args.name)
            sys.stdout.write(f"Removed {args.name}.\n")
            return EXIT_OK
        if command == "search":
            if not args.query.strip():
                raise DocumentError("the query is empty")
            if not 1 <= args.limit <= 50:
                raise DocumentError("--limit must be from 1 to 50")
            hits = [{**h.as_json(), "score": h.score} for h in workspace.search(args.query, args.limit)]
            if args.json:
                sys.stdout.write(json.dumps(hits, ensure_ascii=False, indent=1) + "\n")
            elif not hits:
                sys.stdout.write(f"No results for {args.query!r}.\n")
            for hit in [] if args.json else hits:
                where = f"p. {hit['page']}" if "page" in hit else hit.get("section") or ""
                sys.stdout.write(f"{hit['score']:>6.2f}  {hit['file']}, {where}\n        {hit['snippet']}\n")
            return EXIT_OK
        samples = sample_names(workspace.root)
        entries = workspace.entries()
        rows: list[dict[str, Any]] = [
            {
                "name": e.name,
                "kind": e.kind or e.name.rsplit(".", 1)[-1],
                "size": e.size,
                "pages": e.pages,
                "sections": e.sections,
                "indexed_at": datetime.fromtimestamp(e.indexed_at, UTC).isoformat(timespec="seconds"),
                "sample": e.name in samples,
                "note": e.error and f"could not be read: {e.error}" or e.note,
            }
            for e in entries
        ]
        if args.json:
            sys.stdout.write("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
            return EXIT_OK
        if not rows:
            sys.stdout.write(f"No documents in {workspace.root}. Add some: python -m agent_core workspace add FILE\n")
        for r in rows:
            extent = f"{r['pages']} pages" if r["pages"] else f"{r['sections']} sections"
            tail = (" · sample" if r["sample"] else "") + (f" · {r['note']}" if r["note"] else "")
            sys.stdout.write(f"{r['name']}  ({r['kind']}, {_size(r['size'])}, {extent}){tail}\n")
        if settings.store_url:
            sys.stderr.write("Note: documents stay on this machine; the team store shares runs, not documents.\n")
        return EXIT_OK
    except DocumentError as exc:
        return usage_error(exc)
