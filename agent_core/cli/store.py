"""``python -m agent_core sync``: move runs between a folder and the team store (PostgreSQL).

``sync`` alone sends the data folder (``AGENT_DATA_DIR``) to ``AGENT_STORE_URL``. ``--from`` and
``--to`` name the two sides: one a folder, the other a ``postgresql://`` URL (either way round).
Progress goes to stderr, one line per batch; the URL is shown without its password.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from agent_core.cli.common import EXIT_FAILED, EXIT_OK, usage_error
from agent_core.settings import Settings


def add_sync_parser(sub: Any) -> None:
    sync = sub.add_parser(
        "sync",
        help="copy runs between a folder and the team store (PostgreSQL); only what is new or newer",
        description="Copy runs between a data folder and the team store. Idempotent: a second sync writes "
        "nothing; a sync that was stopped is simply run again.",
    )
    sync.add_argument("--from", dest="source", help="a data folder or a postgresql:// URL (default: AGENT_DATA_DIR)")
    sync.add_argument("--to", dest="target", help="a postgresql:// URL or a data folder (default: AGENT_STORE_URL)")
    sync.add_argument("--batch", type=int, default=500, help="runs per transaction (default 500)")
    sync.add_argument("--quiet", "-q", action="store_true", help="no progress on stderr")


def with_store_note(code: int, settings: Settings) -> int:
    """``code``, after a note on stderr when runs of this command did not all reach the team store."""
    if settings.store_url:
        from agent_core.pgstore.sink import missed_note

        note = missed_note(settings)
        if note:
            sys.stderr.write(f"note: {note}\n")
    return code


def _is_url(text: str) -> bool:
    return "://" in text or text.startswith(("host=", "dbname="))


def cmd_sync(args: argparse.Namespace, settings: Settings) -> int:
    from agent_core import pgstore
    from agent_core.pgstore import sync

    source = args.source or str(settings.data_dir)
    target = args.target or settings.store_url or ""
    if not target:
        return usage_error(ValueError("say where to sync to: --to postgresql://user:password@host:port/db"))
    if _is_url(source) == _is_url(target):
        return usage_error(ValueError("one side of sync must be a folder and the other a postgresql:// URL"))
    if args.batch < 1:
        return usage_error(ValueError("--batch must be at least 1"))
    url, folder = (target, Path(source)) if _is_url(target) else (source, Path(target))
    to_store = url == target
    if to_store and not folder.is_dir():
        return usage_error(ValueError(f"{folder} is not a folder"))
    label = pgstore.safe_url(url)

    def progress(line: str) -> None:
        if not args.quiet:
            sys.stderr.write(f"sync: {line}\n")

    try:
        conn = pgstore.connect(url)
    except pgstore.StoreURLError as exc:
        return usage_error(exc)
    except pgstore.StoreError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return EXIT_FAILED
    import psycopg

    try:
        with conn:
            if to_store:
                progress(f"{sync.runs_folder(folder)} → {label}")
                report = sync.folder_to_store(conn, folder, batch=args.batch, progress=progress)
            else:
                progress(f"{label} → {sync.runs_folder(folder)}")
                report = sync.store_to_folder(conn, folder, batch=args.batch, progress=progress)
            labels = _sync_labels(conn, sync.runs_folder(folder), to_store)
    except psycopg.Error as exc:
        why = pgstore.explain(exc, url) if isinstance(exc, psycopg.OperationalError) else pgstore.scrub(str(exc), url)
        sys.stderr.write(f"error: {why}\n")
        sys.stderr.write("sync stopped; what was sent is kept: run it again to finish\n")
        return EXIT_FAILED
    except OSError as exc:
        sys.stderr.write(f"error: {exc}\nsync stopped; run it again to finish\n")
        return EXIT_FAILED
    for problem in report.problems[:20]:
        sys.stderr.write(f"skipped {problem}\n")
    if len(report.problems) > 20:
        sys.stderr.write(f"… and {len(report.problems) - 20} more unreadable files\n")
    sys.stdout.write(
        f"synced {report.seen:,} runs: {report.written:,} written, {report.unchanged:,} already there"
        f"{f', {len(report.problems):,} unreadable (skipped)' if report.problems else ''}"
        f" in {report.seconds:.1f} s\n"
    )
    if labels.added or labels.replaced or labels.kept:
        sys.stdout.write(
            f"synced {labels.added + labels.replaced + labels.kept:,} labels: {labels.added + labels.replaced:,} "
            f"written, {labels.kept:,} already there (or newer)\n"
        )
    return EXIT_OK


def _sync_labels(conn: Any, runs_dir: Path, to_store: bool) -> Any:
    """People's labels go the same way as the runs (the newer of a run's two labels wins)."""
    from agent_core.pgstore.labels import PgLabels
    from agent_core.records.labels import FolderLabels

    table, folder = PgLabels(lambda: conn), FolderLabels.beside(runs_dir)
    return table.put(folder.all()) if to_store else folder.put(table.all())
