-- People's labels on runs, and each run's retries (History filters by both).
--
-- run_labels: one person's verdict on a run (agent_core.records.labels.Label), kept beside the
-- runs, never inside the record. No foreign key to runs: a label may arrive before its run (an
-- import of labels, a run still in a folder that has not synced). The newer labelled_at wins when
-- two labels of one run meet (the writer's ON CONFLICT says so).
CREATE TABLE run_labels (
    run_id            text PRIMARY KEY,
    verdict           text NOT NULL CHECK (verdict IN ('pass', 'fail')),
    reason            text NOT NULL DEFAULT '',
    corrected_answer  text NOT NULL DEFAULT '',
    user_name         text,
    labelled_at       text NOT NULL,
    labelled_us       bigint NOT NULL,
    written_at        timestamptz NOT NULL DEFAULT now()
);
-- History's label filter: the runs of one verdict (run_id IN …), read from the index alone.
CREATE INDEX run_labels_verdict ON run_labels (verdict, run_id);

-- runs.retries: attempts beyond the first, of each model call (steps[].model_attempts) and of each
-- tool call (tool_calls[].attempts) — the same sum as agent_core.records.columns._retries.
CREATE FUNCTION run_retries(record jsonb) RETURNS integer LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT (
        coalesce((
            SELECT sum(jsonb_array_length(s -> 'model_attempts') - 1)
            FROM jsonb_array_elements(
                CASE WHEN jsonb_typeof(record -> 'steps') = 'array' THEN record -> 'steps' ELSE '[]' END
            ) AS s
            WHERE jsonb_typeof(s) = 'object' AND jsonb_typeof(s -> 'model_attempts') = 'array'
                AND jsonb_array_length(s -> 'model_attempts') > 1
        ), 0)
        + coalesce((
            SELECT sum(jsonb_array_length(c -> 'attempts') - 1)
            FROM jsonb_array_elements(
                CASE WHEN jsonb_typeof(record -> 'tool_calls') = 'array' THEN record -> 'tool_calls' ELSE '[]' END
            ) AS c
            WHERE jsonb_typeof(c) = 'object' AND jsonb_typeof(c -> 'attempts') = 'array'
                AND jsonb_array_length(c -> 'attempts') > 1
        ), 0)
    )::integer
$$;

ALTER TABLE runs ADD COLUMN retries integer NOT NULL DEFAULT 0;
UPDATE runs SET retries = run_retries(record) WHERE run_retries(record) <> 0;
CREATE INDEX runs_retries ON runs (retries, started_us DESC);

-- An app instance still on the code before this migration writes runs without retries (the
-- column's default, 0): before each such write the value is computed from the record here. The
-- current writer sets it itself and says so on its connection (agent_workbench.writes_retries, see
-- agent_core.pgstore.connection), so its writes skip this.
CREATE FUNCTION runs_retries() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('agent_workbench.writes_retries', true) IS DISTINCT FROM 'on' THEN
        NEW.retries := run_retries(NEW.record);
    END IF;
    RETURN NEW;
END
$$;

CREATE TRIGGER runs_retries BEFORE INSERT OR UPDATE OF record ON runs
    FOR EACH ROW EXECUTE FUNCTION runs_retries();
