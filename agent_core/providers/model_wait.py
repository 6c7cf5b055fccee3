"""A model call that waits for a stopped run to let go of the model, as the page and the CLI say it.

The local model serves one request at a time, and a Stop reaches it only between two prompt
batches: a run started right after a Stop may wait a few seconds (far longer on a loaded machine)
for the stopped one. A provider that can tell has a ``model_wait()`` method returning a
:class:`ModelWait` while that happens (``Provider.model_wait``, None by default);
:func:`watch` prints it once per wait (the CLI).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from dataclasses import dataclass

POLL_S = 0.5
"""How often :func:`watch` asks."""


@dataclass(frozen=True)
class ModelWait:
    """A model call waiting for a stopped run to let go of the model."""

    seconds_left: float
    """About how many seconds the stopped run still needs (an estimate, at least 1)."""
    waited_s: float
    """How long this call has waited so far."""

    @property
    def message(self) -> str:
        return f"the local model is finishing the stopped run, about {math.ceil(self.seconds_left)} s"


def watch(
    ask: Callable[[], ModelWait | None], done: threading.Event, write: Callable[[str], object]
) -> threading.Thread:
    """Until ``done`` is set, write one line for each wait for a stopped run (a daemon thread);
    ``ask`` is the provider's ``model_wait``."""

    def loop() -> None:
        waiting = False
        while not done.wait(POLL_S):
            wait = ask()
            if wait is not None and not waiting:
                write(f"  {wait.message} (or use --provider offline)\n")
            waiting = wait is not None

    thread = threading.Thread(target=loop, name="model-wait-watch", daemon=True)
    thread.start()
    return thread
