"""What the local model's token probabilities cost: ms per generated token with and without them.

    python bench/certainty.py [--repeats 5] [--tokens 64]

The local provider asks llama.cpp for each generated token's probability and its likeliest
alternatives (``logprobs`` with ``top_logprobs`` up to 10), to record how sure the model was of
the tool, the answer or the result line it chose (a step's ``constraint.certainty``). This loads
the model once (2 threads) and generates the same reply under a tool-call grammar, alternating
without them, with ``top_logprobs`` 4 and with 10, ``--repeats`` times each, as llama.cpp times
it; it prints the median ms per token of each and one ``BENCH_CERTAINTY`` JSON line. It prints
figures; it is not a timed test.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from agent_core.providers.local import LocalProvider  # noqa: E402
from agent_core.providers.local.engine import current  # noqa: E402
from agent_core.providers.local.prompt import build_messages, output_grammar, output_schema  # noqa: E402
from agent_core.settings import Settings  # noqa: E402
from agent_core.tools.builtins import build_default_registry  # noqa: E402

GOAL = "What does the 10 litre watering can cost, and how much are three of them?"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--tokens", type=int, default=64)
    args = parser.parse_args()
    for _ in LocalProvider().prepare():  # the model file made ready and loaded, as a run does
        pass
    engine = current()
    assert engine is not None
    tools = list(build_default_registry(Settings(), external=False))
    messages = build_messages("You are a helpful assistant.", GOAL, [], tools)
    grammar = output_grammar(output_schema(tools, answer=False))

    def token_ms(top: int | None) -> float:
        body: dict[str, Any] = {
            "messages": messages,
            "grammar": grammar,
            "max_tokens": args.tokens,
            "temperature": 0.0,
            "seed": 42,
            "cache_prompt": True,
        }
        if top is not None:
            body.update(logprobs=True, top_logprobs=top)
        timings = engine.server.handle_chat_completions(body)["timings"]
        return float(timings["predicted_ms"]) / max(1, int(timings["predicted_n"]))

    token_ms(None)  # the prompt, into the cache
    figures: dict[str, list[float]] = {"none": [], "top 4": [], "top 10": []}
    for _ in range(args.repeats):
        for label, top in (("none", None), ("top 4", 4), ("top 10", 10)):
            figures[label].append(token_ms(top))
    medians = {label: round(statistics.median(values), 1) for label, values in figures.items()}
    for label, value in medians.items():
        print(f"{label:8} {value:7.1f} ms per generated token")
    print("BENCH_CERTAINTY " + json.dumps({"ms_per_token": medians, "repeats": args.repeats, "tokens": args.tokens}))


if __name__ == "__main__":
    main()
