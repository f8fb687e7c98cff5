-- Timed Jobs schema, version 7, for PostgreSQL 12 or later: the instances in a graceful stop.
-- An instance in a graceful stop: it begins no fire while it waits for its runs to end, still beating.
-- A stopping instance records a fire it refuses as STOPPING when every other live instance is leaving
-- too (none of them runs it). Instances of versions 5 and 6 never set it; their rows read as staying.
ALTER TABLE ${timedJobsPrefix}instances ADD COLUMN leaving BOOLEAN NOT NULL DEFAULT FALSE;
