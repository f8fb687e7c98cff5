-- Timed Jobs schema, version 6, for H2 2.x: every nominal fire's fate in the run history.
-- It only adds (expand now, contract in a later version): instances of version 5 keep running beside it
-- and keep inserting their runs, which read as one run of one fire. Placeholder ${timedJobsPrefix} as in V1.

-- A record is now a run or a skip. skip_reason is null for a run; for a skip it says why the fire did
-- not run (PAUSED, DATABASE_DOWN, STILL_RUNNING, SUPERSEDED, STOPPING, MISSED; see docs/run-history.md),
-- and outcome is SKIPPED. A skip covers the nominal fires from fire_at to fire_until, fires of them:
-- consecutive fires skipped for one reason are one record. fire_until is null on the rows of version 5
-- instances, read as fire_at; fires is 1 for a run. catch_up marks a run of a missed fire, run later.
-- stack_trace is a failed run's stack trace, cut to 8,000 characters (frames beyond it are one
-- "... N more" line).
ALTER TABLE ${timedJobsPrefix}run_history ADD COLUMN skip_reason VARCHAR(16);
ALTER TABLE ${timedJobsPrefix}run_history ADD COLUMN fire_until TIMESTAMP WITH TIME ZONE;
ALTER TABLE ${timedJobsPrefix}run_history ADD COLUMN fires BIGINT DEFAULT 1 NOT NULL;
ALTER TABLE ${timedJobsPrefix}run_history ADD COLUMN catch_up BOOLEAN DEFAULT FALSE NOT NULL;
ALTER TABLE ${timedJobsPrefix}run_history ADD COLUMN stack_trace VARCHAR(8000);
-- "What happened to job X at T": the records of one name around a nominal fire. Unique with the skip
-- reason: two instances cannot record one skip twice. A run has no skip reason, and nulls are distinct
-- in a unique index, so runs are not constrained by it.
CREATE UNIQUE INDEX IF NOT EXISTS ${timedJobsPrefix}run_history_fire ON ${timedJobsPrefix}run_history (name, fire_at, skip_reason);
