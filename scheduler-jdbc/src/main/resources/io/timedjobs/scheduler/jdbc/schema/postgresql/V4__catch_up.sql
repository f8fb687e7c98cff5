-- Timed Jobs schema, version 4, for PostgreSQL 12 or later: catch-up of the fires missed while no instance ran.
-- It only adds (expand now, contract in a later version): instances of earlier versions keep running
-- beside it, and never read what it adds. Placeholder ${timedJobsPrefix} as in V1.

-- Per job, the watermark of its catch-up policy: the latest nominal fire that was run or deliberately
-- skipped. It only moves forward, by a compare-and-set in the transaction that records a fire, so a
-- missed fire older than it is never run, however long ago its fire record was pruned. Null until the
-- first fire of a job whose policy catches up (ONCE or EACH); jobs that skip missed fires leave it be.
ALTER TABLE ${timedJobsPrefix}jobs ADD COLUMN caught_up_to TIMESTAMP WITH TIME ZONE;
