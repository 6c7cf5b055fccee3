-- runs.outcome: the run's outcome in a person's words (agent_core.records.outcome: answered,
-- not_found, no_answer, step_limit, stopped, failed, running), what History's Status column shows.
-- The writer computes it from the record. The rows already here get it from their status and
-- answer (a not-found answer, or a completed run whose tool calls all failed, shows as answered
-- until the run is written again, e.g. by `sync`); an app instance on older code writes NULL,
-- which History shows as its status's word.
ALTER TABLE runs ADD COLUMN outcome text;
UPDATE runs SET outcome = CASE status
    WHEN 'completed' THEN CASE WHEN coalesce(btrim(record ->> 'answer'), '') = '' THEN 'no_answer' ELSE 'answered' END
    WHEN 'max_steps' THEN 'step_limit'
    WHEN 'cancelled' THEN 'stopped'
    WHEN 'running' THEN 'running'
    ELSE 'failed'
END;
