-- runs.source: where a run came from (agent_core.records.sources: own, eval, arena, replay, demo),
-- what History's and Tool stats' Source filter reads. The writer computes it from the record; the
-- rows already here get it the same way from their stored record. An app instance on older code
-- writes NULL, which the filter reads as 'own' (coalesce in agent_core.pgstore.reading).
ALTER TABLE runs ADD COLUMN source text;
UPDATE runs SET source = CASE
    WHEN coalesce(record ->> 'eval_id', '') <> '' THEN 'eval'
    WHEN coalesce(record ->> 'arena_id', '') <> '' THEN 'arena'
    WHEN coalesce(record ->> 'replay_of', '') <> '' THEN 'replay'
    WHEN scripted THEN 'demo'
    ELSE 'own'
END;
CREATE INDEX runs_source ON runs (source, started_us DESC);
