"""Scale benchmark of the team store: History and Tool stats as SQL over 100,000 runs.

Starts a throwaway PostgreSQL server (``tests/pgserver.py``; or uses ``--url``), writes N varied
run records (``bench/corpus.py``: real-loop templates, cloned with users, verdicts, retries,
fallbacks, errors; about five tool calls each) with the store's batch writer
(:func:`agent_core.pgstore.upsert_records`), then times what the pages ask through
:class:`agent_core.pgstore.reading.PgQueries`:

- ingest: runs and tool calls written per second;
- History first page: the filter choices + page 1 (500 runs, newest first) — target p95 < 0.3 s;
- History filtered + ordered: the choices + page 1 under a rotating set of filters and orders
  (provider, status, text, user, answer check, dates; by duration, cost, tokens, tool calls) —
  target p95 < 0.5 s; and a deep page (offset 50,000) for reference;
- Tool stats: the filter choices, the per-tool / per-model tables (p50/p95, categories, retries,
  fallbacks, duplicates), the answer-check rates and coverage — target < 2 s.

Prints a table and one JSON line (``BENCH_POSTGRES {...}``) with the load average.

    python bench/postgres.py                  # 100,000 runs in a throwaway server
    python bench/postgres.py --runs 20000 --repeat 10
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from corpus import make_templates, team_record  # noqa: E402

from agent_core.records.queries import RunFilter  # noqa: E402

TARGETS = {"history_first_p95_s": 0.3, "history_filtered_p95_s": 0.5, "tool_stats_s": 2.0}


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def ingest(url: str, runs: int, batch: int, templates: int, seed: int) -> dict[str, Any]:
    """Write ``runs`` records in batches; the writer's time only (generating them is not counted)."""
    import tempfile

    from agent_core.pgstore import connect, upsert_records

    with tempfile.TemporaryDirectory() as scratch:
        tpl = [json.dumps(t) for t in make_templates(templates, Path(scratch), seed=seed)]  # JSON: quick copies
    rng = random.Random(seed)
    now = datetime.now(timezone.utc)
    span = 180 * 86400
    written = calls = 0
    spent = 0.0
    with connect(url) as conn:
        for start in range(0, runs, batch):
            records = [
                team_record(rng.choice(tpl), rng, now - timedelta(seconds=rng.uniform(0, span)))
                for _ in range(min(batch, runs - start))
            ]
            t0 = time.perf_counter()
            result = upsert_records(conn, records)
            spent += time.perf_counter() - t0
            written += result.written
            calls += result.calls
            if (start // batch) % 10 == 9:
                print(f"  {written:,} runs, {calls:,} calls written ({written / spent:,.0f} runs/s)", flush=True)
        conn.execute("VACUUM ANALYZE runs")  # what autovacuum does on a server soon after a load
        conn.execute("VACUUM ANALYZE tool_calls")
    return {
        "runs": written,
        "tool_calls": calls,
        "ingest_s": round(spent, 1),
        "ingest_runs_per_s": round(written / spent),
        "ingest_calls_per_s": round(calls / spent),
    }


def timed(fn: Callable[[], Any], repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return times


def measure(url: str, repeat: int) -> dict[str, Any]:
    from agent_core.pgstore.reading import PgQueries

    q = PgQueries.from_url(url)
    choices = q.choices()
    days = (choices.first_day, choices.last_day)
    assert days[0] is not None and days[1] is not None
    recent = (days[1] - timedelta(days=30), days[1])
    everything = RunFilter(days=days)  # what the page asks with its default date range
    q.page(everything)  # warm the connection and the cache

    def first_page() -> None:
        q.choices()
        q.page(everything, size=500)

    cases = [
        (RunFilter(days=days, providers=("openai",)), ("duration_ms", False)),
        (RunFilter(days=days, statuses=("completed",), text="refund"), ("cost_usd", False)),
        (RunFilter(days=days, users=("ana",), checks=("partly", "ungrounded")), ("tokens", False)),
        (RunFilter(days=recent, models=("claude-sonnet-4-5", "gpt-5-mini")), ("tool_calls", False)),
        (RunFilter(days=days, statuses=("interrupted", "error")), ("started_at", True)),
        (RunFilter(days=days, text="단가", include_demos=False), ("steps", False)),
    ]
    turn = iter(range(10**9))

    def filtered_page() -> None:
        where, order = cases[next(turn) % len(cases)]
        q.choices()
        q.page(where, order=order, size=500)

    def deep_page() -> None:
        q.page(everything, page=101, size=500)

    stats_filter = RunFilter(days=days)

    def tool_stats_page() -> None:
        q.call_choices()
        q.tool_stats(stats_filter)
        q.grounding_rates(stats_filter)
        q.coverage(stats_filter)

    out: dict[str, Any] = {}

    def first_page_cold() -> None:
        q._choices = None  # as after a new run was saved: the choices are counted again
        first_page()

    cold = timed(first_page_cold, max(3, repeat // 3))
    out["history_first_cold_p95_s"] = _p95(cold)
    first = timed(first_page, repeat)
    out["history_first_p50_s"], out["history_first_p95_s"] = statistics.median(first), _p95(first)
    filtered = timed(filtered_page, repeat * 2)
    out["history_filtered_p50_s"], out["history_filtered_p95_s"] = statistics.median(filtered), _p95(filtered)
    deep = timed(deep_page, max(3, repeat // 3))
    out["history_deep_page_p95_s"] = _p95(deep)
    stats_only = timed(lambda: q.tool_stats(stats_filter), 3)
    out["tool_stats_tables_s"] = max(stats_only)
    page = timed(tool_stats_page, 3)
    out["tool_stats_s"] = max(page)
    q.close()
    return {k: round(v, 3) if isinstance(v, float) else v for k, v in out.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=100_000)
    parser.add_argument("--batch", type=int, default=1000)
    parser.add_argument("--templates", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--url", help="an existing empty database instead of a throwaway server")
    parser.add_argument("--measure-only", action="store_true", help="only time the reads (of --url's runs)")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT / "tests"))
    server = None
    url = args.url
    if url is None:
        import pgserver

        reason = pgserver.why_unavailable()
        if reason:
            print(f"no PostgreSQL server can be started: {reason}", file=sys.stderr)
            return 2
        server = pgserver.start_server()
        url = server.url()
    try:
        load_before = os.getloadavg()
        if not args.measure_only:
            print(f"writing {args.runs:,} runs …", flush=True)
        figures = {} if args.measure_only else ingest(url, args.runs, args.batch, args.templates, args.seed)
        figures.update(measure(url, args.repeat))
        figures["load_average"] = [round(x, 2) for x in os.getloadavg()]
        figures["load_average_at_start"] = [round(x, 2) for x in load_before]
        figures["cpus"] = os.cpu_count()
    finally:
        if server is not None:
            import pgserver

            pgserver.remove_server(server)
    width = max(map(len, figures))
    for key, value in figures.items():
        target = TARGETS.get(key)
        verdict = "" if target is None else ("  ok" if value < target else f"  OVER {target}")
        print(f"{key:<{width}}  {value}{verdict}")
    print("BENCH_POSTGRES " + json.dumps(figures))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
