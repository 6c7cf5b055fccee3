"""How llama.cpp's threads should wait for each other: ms per token under other loads.

    python bench/threads.py [--repeats 3]

Each figure is a new process that loads the local model (2 threads) and measures, as llama.cpp
reports it, the median over ``--repeats`` of prompt processing (~600 tokens, not cached) and of
generating 64 tokens, while something else uses the cores:

- none; a process busy 20 % or 50 % of the time (a dashboard, a browser); a process that keeps a
  core busy; a second model process generating at the same time;

under libgomp's default wait (spin a little, then sleep) and under ``OMP_WAIT_POLICY=PASSIVE``.
``agent_core/providers/local/engine.py:wait_policy`` is chosen from these figures.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

MEASURE = r"""
import json, os, statistics, sys
sys.path.insert(0, {root!r})
from agent_core.providers.local import model_files
from agent_core.providers.local.engine import load_engine, threads_from_env
source = model_files.resolve_source(os.environ)
gen = model_files.ensure_model_file(source)
try:
    while True:
        next(gen)
except StopIteration as done:
    path = done.value
engine, _ = load_engine(path, n_threads=threads_from_env(os.environ), n_ctx=4096)
text = " ".join(f"Row {{i}}: part number {{i}} costs {{i * 3}} pounds and weighs {{i}} kg." for i in range(40))
def ask(content, n):
    body = {{"messages": [{{"role": "user", "content": content}}], "max_tokens": n, "temperature": 0.0,
            "seed": 42, "cache_prompt": False}}
    timings = engine.server.handle_chat_completions(body)["timings"]
    return timings["prompt_ms"] / timings["prompt_n"], timings["predicted_ms"] / timings["predicted_n"]
ask("hi", 4)
prompt, generated = [], []
for i in range({repeats}):
    prompt.append(ask(text + f" ({{i}})", 1)[0])
    generated.append(ask(f"Write a short story about a lighthouse keeper ({{i}}).", 64)[1])
print(json.dumps({{"prompt_ms": statistics.median(prompt), "token_ms": statistics.median(generated),
                  "policy": os.environ.get("OMP_WAIT_POLICY", "default")}}))
"""

BUSY = r"""
import sys, time
duty, period = float(sys.argv[1]), 0.05
while True:
    t = time.perf_counter()
    while time.perf_counter() - t < period * duty:
        pass
    time.sleep(period * (1 - duty))
"""


def measure(env: dict[str, str], repeats: int) -> dict[str, float]:
    code = MEASURE.format(root=str(ROOT), repeats=repeats)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    base = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    policies = {"default": {**base, "GOMP_SPINCOUNT": "300000"}, "passive": {**base, "OMP_WAIT_POLICY": "PASSIVE"}}
    print(f"{'other load':28} {'wait':8} {'prompt ms/token':>16} {'ms/token':>9}", flush=True)
    for label, duty in (("none", None), ("busy 20 %", 0.2), ("busy 50 %", 0.5), ("busy 100 %", 1.0)):
        for name, env in policies.items():
            busy = None if duty is None else subprocess.Popen([sys.executable, "-c", BUSY, str(duty)])
            try:
                time.sleep(0.5)
                got = measure(env, args.repeats)
            finally:
                if busy is not None:
                    busy.kill()
                    busy.wait()
            print(f"{label:28} {name:8} {got['prompt_ms']:16.1f} {got['token_ms']:9.1f}", flush=True)
    for name, env in policies.items():  # two model processes at once, both started with this wait
        with_two = [
            subprocess.Popen(
                [sys.executable, "-c", MEASURE.format(root=str(ROOT), repeats=args.repeats)],
                env=env,
                stdout=subprocess.PIPE,
                text=True,
            )
            for _ in range(2)
        ]
        results = [json.loads((p.communicate()[0] or "{}").strip().splitlines()[-1]) for p in with_two]
        token_ms = statistics.mean(r["token_ms"] for r in results)
        prompt_ms = statistics.mean(r["prompt_ms"] for r in results)
        print(f"{'a second model generating':28} {name:8} {prompt_ms:16.1f} {token_ms:9.1f}", flush=True)


if __name__ == "__main__":
    main()
