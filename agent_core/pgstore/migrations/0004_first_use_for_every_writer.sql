-- tool_calls.first_use (0003) is set by the writer. An app instance still on the code before 0003
-- writes call rows without it (the column's default, false), and Coverage counted none of its runs
-- as using their tools: on a shared store every tool's choice rate dropped, silently.
-- After each insert, the runs whose new rows name a tool that has no first use in the run yet get
-- theirs set here. A writer that sets first_use itself leaves nothing for this to do (the probe
-- finds the first use it wrote), so a batch of the current writer costs one lookup per new row.
CREATE FUNCTION tool_calls_first_use() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE tool_calls t SET first_use = (t.seq = f.seq)
    FROM (
        SELECT DISTINCT ON (c.run_id, c.tool) c.run_id, c.tool, c.seq
        FROM tool_calls c
        WHERE c.tool IS NOT NULL AND c.run_id IN (
            SELECT a.run_id FROM added a
            WHERE a.tool IS NOT NULL AND NOT EXISTS (
                SELECT 1 FROM tool_calls x WHERE x.run_id = a.run_id AND x.tool = a.tool AND x.first_use
            )
        )
        ORDER BY c.run_id, c.tool, c.seq
    ) f
    WHERE t.run_id = f.run_id AND t.tool = f.tool AND t.first_use IS DISTINCT FROM (t.seq = f.seq);
    RETURN NULL;
END
$$;

CREATE TRIGGER tool_calls_first_use AFTER INSERT ON tool_calls
    REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION tool_calls_first_use();
