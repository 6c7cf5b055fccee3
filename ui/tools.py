"""The Tools page's slow call: while the dispatcher waits before a retry, the page says which
attempt failed and which comes next (beside the spinner's clock)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from ui import common as ui


def retry_waiter(slot: Any, tool: str, sleep: Callable[[float], Any] = time.sleep) -> Callable[[float], None]:
    """A ``sleep`` for :class:`agent_core.run.dispatcher.Dispatcher` that shows the attempt count in
    ``slot`` (an ``st.empty``) while it waits, then the attempt under way."""
    failed = 0
    name = ui.md_label(tool, 64)

    def wait(seconds: float) -> None:
        nonlocal failed
        failed += 1
        slot.caption(
            f"🔁 Attempt {failed} of {name} failed (a temporary error) · attempt {failed + 1} in {seconds:.2f} s…"
        )
        sleep(seconds)
        slot.caption(f"🔁 Attempt {failed + 1} of {name}…")

    return wait
