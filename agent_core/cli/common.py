"""What every command-line subcommand shares: the exit codes and the bad-input message."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from agent_core.errors import ProviderUnavailable

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
"""0 done, 1 the work failed (a failed run, an eval below --min-pass, a refused export), 2 bad input."""


def usage_error(exc: Exception) -> int:
    """Say what was wrong with the input on stderr, in one line; the bad-input exit code."""
    message = exc.message if isinstance(exc, ProviderUnavailable) else str(exc)
    sys.stderr.write(f"error: {message}\n")
    return EXIT_USAGE


class ProviderEntries(argparse.Action):
    """``--provider P`` starts an entry in ``namespace.entries``; an option after it (``--model``,
    ``--base-url``: the action's ``dest``) sets that entry's value. Giving one twice adds an entry
    for the same provider: ``--provider local --model A --model B`` is two entries."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        entries: list[dict[str, str]] = list(getattr(namespace, "entries", None) or [])
        if self.dest == "provider":
            entries.append({"provider": str(values)})
        elif not entries:
            parser.exit(EXIT_USAGE, f"error: {option_string} must follow the --provider it belongs to\n")
        elif self.dest in entries[-1]:
            entries.append({**entries[-1], self.dest: str(values)})
        else:
            entries[-1][self.dest] = str(values)
        namespace.entries = entries
