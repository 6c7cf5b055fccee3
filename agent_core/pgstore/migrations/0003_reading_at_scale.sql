-- Reading at 100,000 runs / 500,000 tool calls (bench/postgres.py): what History's search and
-- Tool stats computed row by row at every page view is now stored once, when the row is written.
--
-- runs.search: the goal and run id folded to lower case, as History's text filter compares them.
-- Folding with ICU's root collation (every script: "Été" → "été") cost ~4 µs a row, 0.4 s a search
-- at 100,000 runs; now a search is a plain strpos over this column. A generated column: PostgreSQL
-- keeps it right on every insert and update, whoever writes. Servers built without ICU fold with
-- lower() under the database's collation, as the reader does there (PgQueries._icu).
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_collation WHERE collname = 'und-x-icu') THEN
        ALTER TABLE runs ADD COLUMN search text
            GENERATED ALWAYS AS (lower((goal || ' ' || run_id) COLLATE "und-x-icu")) STORED;
    ELSE
        ALTER TABLE runs ADD COLUMN search text GENERATED ALWAYS AS (lower(goal || ' ' || run_id)) STORED;
    END IF;
END
$$;

-- tool_calls.first_use: the first call of its tool in its run (set by the writer from the whole
-- record, with the run's other call rows). Coverage's "runs that used the tool" is then
-- count(*) FILTER (WHERE first_use) instead of a count per (tool, run): a 345,000-group hash.
ALTER TABLE tool_calls ADD COLUMN first_use boolean NOT NULL DEFAULT false;
UPDATE tool_calls t SET first_use = true
FROM (
    SELECT DISTINCT ON (run_id, tool) run_id, seq FROM tool_calls WHERE tool IS NOT NULL ORDER BY run_id, tool, seq
) f
WHERE t.run_id = f.run_id AND t.seq = f.seq;

-- Tool stats per provider and model (and per tool within them): read in group order with each
-- group's durations already sorted, so p50/p95 (percentile_cont) need no sort of all calls;
-- everything the page counts is in the index (index-only). It replaces the (provider, model) index
-- it starts with, and tool_calls_stats (tool, …) covers the plain (tool) index: the writer
-- maintains one index fewer than before.
CREATE INDEX tool_calls_by_model ON tool_calls (provider, model, tool, duration_ms)
    INCLUDE (run_started_us, success, error_category, retried, fallback, duplicate, first_use);
DROP INDEX tool_calls_provider_model;
DROP INDEX tool_calls_tool;
