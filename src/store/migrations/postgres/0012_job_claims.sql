-- PostgreSQL's 0012_job_claims.sql: who runs each job of a namespace now,
-- across the gateways that share the database (docs/upkeep.md "Claims").
-- A claimant locks the row FOR UPDATE SKIP LOCKED, so it never waits for
-- another's claim: a row locked or held by a live claim is simply not
-- claimable, and that gateway leaves the job to the other.
CREATE TABLE job_claims (
  ns         text NOT NULL DEFAULT current_setting('cilia.ns'),
  job        text NOT NULL,
  holder     text,
  run_id     bigint,
  claimed_at bigint,
  expires_at bigint,
  PRIMARY KEY (ns, job)
);
SELECT cilia_namespace_table('job_claims');
