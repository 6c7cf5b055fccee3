"""How much of the CPU a page still gets while the local model loads in the background.

The main thread counts pure-Python loop turns per second (what drawing a page needs: the
interpreter and the GIL) before the preload, then during it, second by second, until the load
is done (or ``--seconds``). Prints each second's share of the baseline and the longest stall (the
longest the loop was held up: the GIL held by the load, or the CPU taken by its threads), then one
JSON line (``BENCH_PRELOAD {...}``). Needs the local model; a shared machine makes it noisy: run it
twice.

    LOCAL_PRELOAD=1 python bench/preload_share.py
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def turns(seconds: float) -> tuple[int, float]:
    """(loop turns, longest gap between two turns in s) over ``seconds``."""
    n, worst = 0, 0.0
    start = last = time.perf_counter()
    while (now := time.perf_counter()) - start < seconds:
        n += 1
        worst = max(worst, now - last)
        last = now
    return n, worst


def main(argv: list[str] | None = None) -> int:
    """Command line: see the module docstring."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=60.0, help="stop measuring after this long (default 60)")
    args = parser.parse_args(argv)
    os.environ["AGENT_DATA_DIR"] = tempfile.mkdtemp(prefix="bench-preload-")  # no prompt cache: the full load
    from agent_core.providers.local import preload
    from agent_core.settings import Settings

    base, _ = turns(2.0)
    per_s = base / 2.0
    state = preload.start(Settings.from_env())
    if state is None:
        print("the local model is not installed: nothing to measure")
        return 1
    shares, stalls = [], []
    t0 = time.monotonic()
    while not state.done.is_set() and time.monotonic() - t0 < args.seconds:
        t = time.monotonic()
        n, worst = turns(1.0)
        took = time.monotonic() - t
        shares.append(n / took / per_s)
        stalls.append(worst)
        stage = state.progress.message[:40] if state.progress else "starting"
        print(
            f"{time.monotonic() - t0:5.1f} s  {shares[-1]:5.0%} of the baseline  longest stall {worst * 1000:6.0f} ms  {stage}"
        )
    figures = {
        "baseline_turns_per_s": round(per_s),
        "seconds": round(time.monotonic() - t0, 1),
        "load_done": state.done.is_set(),
        "median_share": round(statistics.median(shares), 3) if shares else None,
        "worst_share": round(min(shares), 3) if shares else None,
        "longest_stall_ms": round(max(stalls) * 1000) if stalls else None,
        "load_average": round(os.getloadavg()[0], 2),
        "cpus": os.cpu_count(),
    }
    print("BENCH_PRELOAD " + json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
