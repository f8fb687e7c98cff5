-- Timed Jobs schema, version 6, for MariaDB 10.6 or later and MySQL 8.0.1 or later: every nominal
-- fire's fate in the run history.
-- It only adds (expand now, contract in a later version): instances of version 5 keep running beside it
-- and keep inserting their runs, which read as one run of one fire. Placeholder ${timedJobsPrefix} as
-- in V1. A statement a run that stopped halfway did already fails as such, and is passed over; the
-- index is added by ALTER TABLE, as the other changes, so that the right ALTER is the only one it needs.

-- A record is now a run or a skip. skip_reason is null for a run; for a skip it says why the fire did
-- not run (PAUSED, DATABASE_DOWN, STILL_RUNNING, SUPERSEDED, STOPPING, MISSED; see docs/run-history.md),
-- and outcome is SKIPPED. A skip covers the nominal fires from fire_at to fire_until (UTC), fires of
-- them: consecutive fires skipped for one reason are one record. fire_until is null on the rows of
-- version 5 instances, read as fire_at; fires is 1 for a run. catch_up marks a run of a missed fire,
-- run later. stack_trace is a failed run's stack trace, cut to 8,000 characters (frames beyond it are
-- one "... N more" line); TEXT, so that it is kept off the row.
ALTER TABLE ${timedJobsPrefix}run_history ADD COLUMN skip_reason VARCHAR(16) NULL;
ALTER TABLE ${timedJobsPrefix}run_history ADD COLUMN fire_until DATETIME(6) NULL;
ALTER TABLE ${timedJobsPrefix}run_history ADD COLUMN fires BIGINT NOT NULL DEFAULT 1;
ALTER TABLE ${timedJobsPrefix}run_history ADD COLUMN catch_up BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE ${timedJobsPrefix}run_history ADD COLUMN stack_trace TEXT NULL;
-- "What happened to job X at T": the records of one name around a nominal fire. Unique with the skip
-- reason: two instances cannot record one skip twice. A run has no skip reason, and nulls are distinct
-- in a unique index, so runs are not constrained by it.
ALTER TABLE ${timedJobsPrefix}run_history ADD UNIQUE INDEX ${timedJobsPrefix}run_history_fire (name, fire_at, skip_reason);
