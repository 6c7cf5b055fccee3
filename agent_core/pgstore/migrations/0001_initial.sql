-- The team store's first schema. Applied once, in a transaction, and recorded in
-- schema_migrations (the runner lives in agent_core.pgstore). Never edit a migration that has
-- shipped: add the next numbered file instead.
--
-- runs: one row per run. The summary columns are agent_core.run_columns.RUN_COLUMN_SPEC (same
-- names, same meaning, so History reads the same values from either backend), plus who ran it
-- and the whole record as JSONB (the unit of truth).
CREATE TABLE runs (
    run_id          text PRIMARY KEY,
    started_at      text,
    started_us      bigint,
    goal            text NOT NULL DEFAULT '',
    provider        text NOT NULL DEFAULT '',
    model           text NOT NULL DEFAULT '',
    status          text NOT NULL DEFAULT '',
    steps           integer NOT NULL DEFAULT 0,
    tool_calls      integer NOT NULL DEFAULT 0,
    failed_calls    integer NOT NULL DEFAULT 0,
    blocks_trimmed  integer NOT NULL DEFAULT 0,
    tokens          bigint NOT NULL DEFAULT 0,
    cost_usd        double precision,
    duration_ms     double precision,
    scripted        boolean NOT NULL DEFAULT false,
    grounding       text,
    tools_offered   text,
    owner_pid       bigint,
    owner_host      text,
    updated_at      text,
    user_name       text,
    record          jsonb NOT NULL,
    written_at      timestamptz NOT NULL DEFAULT now()
);
-- History: newest first, paged (keyset on started_us, run_id), and its filters.
CREATE INDEX runs_newest ON runs (started_us DESC NULLS LAST, run_id DESC);
CREATE INDEX runs_provider_model ON runs (provider, model, started_us DESC);
CREATE INDEX runs_status ON runs (status, started_us DESC);
CREATE INDEX runs_user ON runs (user_name, started_us DESC);
CREATE INDEX runs_grounding ON runs (grounding, started_us DESC);

-- tool_calls: one row per tool call (what Tool stats needs), in the record's order (seq). The
-- run's start, provider and model are repeated here so Tool stats filters without a join.
CREATE TABLE tool_calls (
    run_id            text NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    seq               integer NOT NULL,
    run_started_at    text,
    run_started_us    bigint,
    provider          text NOT NULL DEFAULT '',
    model             text NOT NULL DEFAULT '',
    call_id           text,
    step              integer,
    tool              text,
    success           boolean NOT NULL,
    error_category    text,
    attempts          integer NOT NULL DEFAULT 0,
    retried           boolean GENERATED ALWAYS AS (attempts > 1) STORED,
    fallback          text,
    fallback_success  boolean,
    duplicate         boolean NOT NULL DEFAULT false,
    truncated         boolean NOT NULL DEFAULT false,
    duration_ms       double precision,
    started_at        text,
    PRIMARY KEY (run_id, seq)
);
CREATE INDEX tool_calls_tool ON tool_calls (tool);
CREATE INDEX tool_calls_provider_model ON tool_calls (provider, model);
CREATE INDEX tool_calls_run_started ON tool_calls (run_started_us);
