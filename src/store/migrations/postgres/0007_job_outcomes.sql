-- PostgreSQL's 0007_job_outcomes.sql: a run can end "partial". PostgreSQL
-- changes the CHECK in place (SQLite copies the table).
ALTER TABLE job_runs DROP CONSTRAINT job_runs_outcome;
ALTER TABLE job_runs ADD CONSTRAINT job_runs_outcome
  CHECK (outcome IN ('running', 'ok', 'partial', 'skipped', 'failed'));
