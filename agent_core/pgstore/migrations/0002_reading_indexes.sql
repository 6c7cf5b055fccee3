-- Reading (History, Tool stats; agent_core.pgstore.reading): two indexes bench/postgres.py asked for.
--
-- runs_written: the newest write is one index probe, so "did anything change?" (the pages' cache
-- key, PgQueries.version) costs nothing at 100,000 runs.
CREATE INDEX runs_written ON runs (written_at);
-- tool_calls_stats: Tool stats groups every call by tool, provider and model and sorts each
-- group's durations (p50/p95); read in this order from the index alone, the whole-table sort
-- goes away (a quarter of the query's time at 500,000 calls).
CREATE INDEX tool_calls_stats ON tool_calls (tool, provider, model)
    INCLUDE (duration_ms, success, error_category, retried, fallback, duplicate, run_started_us);
