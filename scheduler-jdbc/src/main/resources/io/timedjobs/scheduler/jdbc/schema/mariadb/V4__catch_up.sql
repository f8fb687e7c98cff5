-- Timed Jobs schema, version 4, for MariaDB 10.6 or later and MySQL 8.0.1 or later: catch-up of the
-- fires missed while no instance ran.
-- It only adds (expand now, contract in a later version): instances of earlier versions keep running
-- beside it, and never read what it adds. Placeholder ${timedJobsPrefix} as in V1.

-- Per job, the watermark of its catch-up policy: the latest nominal fire that was run or deliberately
-- skipped, in UTC with microseconds (compared for equality by the compare-and-set that moves it, so
-- never a TIMESTAMP, which rounds nothing but may initialise itself). It only moves forward, in the
-- transaction that records a fire. Null until the first fire of a job whose policy catches up.
ALTER TABLE ${timedJobsPrefix}jobs ADD COLUMN caught_up_to DATETIME(6) NULL;
