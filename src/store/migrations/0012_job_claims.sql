-- Who runs each job now (docs/upkeep.md "Claims"): one row per job, made at
-- its first run. A run starts only after taking the claim, in the same
-- transaction that records it in job_runs; the claim is extended while the
-- run lives and let go when it ends. A claim whose holder stopped extending
-- it expires, and the next claimant takes it and marks the run it named as
-- interrupted. SQLite has one writer per file, which makes claimants take
-- turns; the table matters where several processes share one store
-- (PostgreSQL's 0012, with FOR UPDATE SKIP LOCKED).
CREATE TABLE job_claims (
  job        TEXT PRIMARY KEY,  -- extract, nightly, retention, reindex
  holder     TEXT,              -- host:pid:random of the process that holds it; NULL when free
  run_id     INTEGER,           -- job_runs.id of the holder's run; NULL when free
  claimed_at INTEGER,
  expires_at INTEGER            -- the holder extends it every third of its life
);
