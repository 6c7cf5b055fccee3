"""What every command-line subcommand shares: the exit codes and the bad-input message."""

from __future__ import annotations

import sys

from agent_core.errors import ProviderUnavailable

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
"""0 done, 1 the work failed (a failed run, an eval below --min-pass, a refused export), 2 bad input."""


def usage_error(exc: Exception) -> int:
    """Say what was wrong with the input on stderr, in one line; the bad-input exit code."""
    message = exc.message if isinstance(exc, ProviderUnavailable) else str(exc)
    sys.stderr.write(f"error: {message}\n")
    return EXIT_USAGE
