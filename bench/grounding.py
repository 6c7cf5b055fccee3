"""Answer-check (grounding) cost: how long checking one answer takes against large tool outputs.

The worst ordinary case: five different tool outputs at the default output cap (4,000
characters), full of numbers, and an answer with figures found in none of them (so every source
is searched); and the same outputs against an answer stating three differences ("$N more than",
"cheaper by $N", "a difference of $N"), each looked for as two of the outputs' figures that differ
by it. Prints the median and the slowest of several rounds, and one ``BENCH_GROUNDING`` JSON line.

    python bench/grounding.py [--rounds 20]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agent_core.checks.grounding import check_answer  # noqa: E402


def big_outputs(seed: int) -> list[dict[str, Any]]:
    """Five different 4,000-character outputs of numbers, new objects each round (no cache hits)."""
    return [
        {
            "call_id": f"c{seed}-{k}",
            "tool": "read_file",
            "success": True,
            "output": " ".join(f"{i * 7.3 + k + seed:.1f}" for i in range(600)),
        }
        for k in range(5)
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    figures = "a 123456.789 b 98765.4321 c 5555.5 d 77777"
    differences = "A is $12345.67 more than B, and cheaper by $23456.78 than C; a difference of $34567.89."
    found: dict[str, float] = {}
    for name, answer in (("figures", figures), ("differences", differences)):
        times = []
        for round_ in range(args.rounds):
            calls = big_outputs(round_)
            t0 = time.perf_counter()
            result = check_answer(answer, "goal 12 13", calls)
            times.append(time.perf_counter() - t0)
            assert result["status"] == "ungrounded"
        median, worst = statistics.median(times), max(times)
        print(
            f"answer check, {name} against 5 × 4,000-character numeric outputs: median {median * 1000:.1f} ms, "
            f"slowest {worst * 1000:.1f} ms over {args.rounds} rounds"
        )
        found |= {f"{name}_median_ms": round(median * 1000, 2), f"{name}_max_ms": round(worst * 1000, 2)}
    print("BENCH_GROUNDING " + json.dumps(found))


if __name__ == "__main__":
    main()
