-- Timed Jobs schema, version 3, for MariaDB 10.6 or later and MySQL 8.0.1 or later: the trace context
-- a durable task was scheduled under.
-- It only adds a nullable column (expand now, contract in a later version): instances of versions 1
-- and 2 keep running beside it and never read it. Placeholder ${timedJobsPrefix} as in V1.

-- The W3C traceparent of the call that scheduled the task, written only when a tracer is present;
-- its run continues that trace. A recurring task clears it after its first fire.
ALTER TABLE ${timedJobsPrefix}tasks ADD COLUMN trace_parent VARCHAR(55);
