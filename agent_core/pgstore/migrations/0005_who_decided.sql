-- Who decided each tool call: tool_calls.origin is the record's tool_calls[].origin, 'model' (the
-- model chose the tool and its arguments) or 'harness' (the workbench chose the call for it), and
-- NULL for a call whose record did not say (runs from before the field). Tool stats counts the
-- model's calls apart from the workbench's, and Coverage counts the runs in which the model itself
-- chose a tool: tool_calls.first_model_use marks a run's first model-chosen call of each tool, set by
-- the writer with the run's other call rows, as first_use is (0003). A tool that only the workbench
-- ever called is no evidence that the model can use it.
ALTER TABLE tool_calls ADD COLUMN origin text;
ALTER TABLE tool_calls ADD COLUMN first_model_use boolean NOT NULL DEFAULT false;

-- origin and first_model_use of the call rows of runs ``ids`` whose origin is not stored, from the
-- stored records (tool_calls.seq is the call's position in the record's tool_calls). Each record is
-- read once. Used below for the rows written before this migration, and by the trigger after it.
CREATE FUNCTION tool_calls_origin_from_records(ids text[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    UPDATE tool_calls t SET origin = o.origin
    FROM (
        SELECT r.run_id, (e.n - 1)::integer AS seq, e.call ->> 'origin' AS origin
        FROM runs r
        CROSS JOIN LATERAL jsonb_array_elements(
            CASE WHEN jsonb_typeof(r.record -> 'tool_calls') = 'array' THEN r.record -> 'tool_calls' ELSE '[]' END
        ) WITH ORDINALITY AS e(call, n)
        WHERE r.run_id = ANY(ids) AND jsonb_typeof(e.call) = 'object' AND e.call ->> 'origin' IN ('model', 'harness')
    ) o
    WHERE t.run_id = o.run_id AND t.seq = o.seq AND t.origin IS NULL;
    UPDATE tool_calls t SET first_model_use = (t.seq = f.seq)
    FROM (
        SELECT DISTINCT ON (c.run_id, c.tool) c.run_id, c.tool, c.seq
        FROM tool_calls c
        WHERE c.run_id = ANY(ids) AND c.tool IS NOT NULL AND c.origin = 'model'
        ORDER BY c.run_id, c.tool, c.seq
    ) f
    WHERE t.run_id = f.run_id AND t.tool = f.tool AND t.first_model_use IS DISTINCT FROM (t.seq = f.seq);
END
$$;

SELECT tool_calls_origin_from_records(array(SELECT run_id FROM runs));

-- An app instance still on the code before this migration writes call rows without origin (the
-- records it saves do say who decided): after each insert, the rows it left without one get it from
-- their record here. The current writer sets both columns itself and says so on its connection
-- (agent_workbench.writes_origin, see agent_core.pgstore.connection), so its inserts skip this.
CREATE FUNCTION tool_calls_origin() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('agent_workbench.writes_origin', true) IS DISTINCT FROM 'on' THEN
        PERFORM tool_calls_origin_from_records(array(SELECT DISTINCT run_id FROM added WHERE origin IS NULL));
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER tool_calls_origin AFTER INSERT ON tool_calls
    REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION tool_calls_origin();

-- Tool stats and Coverage read both columns from the covering indexes of 0002 and 0003 (index-only,
-- as before): rebuilt with them.
DROP INDEX tool_calls_by_model;
CREATE INDEX tool_calls_by_model ON tool_calls (provider, model, tool, duration_ms)
    INCLUDE (run_started_us, success, error_category, retried, fallback, duplicate, first_use, origin, first_model_use);
DROP INDEX tool_calls_stats;
CREATE INDEX tool_calls_stats ON tool_calls (tool, provider, model)
    INCLUDE (duration_ms, success, error_category, retried, fallback, duplicate, run_started_us, origin);
