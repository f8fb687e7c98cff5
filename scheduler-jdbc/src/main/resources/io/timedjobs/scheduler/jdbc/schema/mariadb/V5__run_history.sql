-- Timed Jobs schema, version 5, for MariaDB 10.6 or later and MySQL 8.0.1 or later: the run history.
-- It only adds a table: instances of earlier versions keep running beside it and never read it.
-- Placeholder ${timedJobsPrefix}, types and table options as in V1; the indexes are declared in the
-- table, as MySQL has no CREATE INDEX IF NOT EXISTS.

-- One row per clustered run (kind 'JOB', name = the job) and per durable execution (kind 'TASK',
-- name = the handler, task_key = the task's key), written in the transaction that records the
-- run's end. fire_at is the nominal fire; started_at is the database's time at the end minus the
-- duration, both UTC. outcome: SUCCEEDED, FAILED (given up) or RETRIED (a durable attempt retried
-- later). error is the exception's class and message, cut to 500 characters. Pruned in small
-- batches by age and by count, oldest id first.
CREATE TABLE IF NOT EXISTS ${timedJobsPrefix}run_history (
    id            BIGINT       NOT NULL AUTO_INCREMENT PRIMARY KEY,
    kind          VARCHAR(8)   NOT NULL,
    name          VARCHAR(300) NOT NULL,
    task_key      VARCHAR(200),
    fire_at       DATETIME(6)  NOT NULL,
    instance_name VARCHAR(200) NOT NULL,
    started_at    DATETIME(6)  NOT NULL,
    duration_ms   BIGINT       NOT NULL,
    outcome       VARCHAR(16)  NOT NULL,
    attempt       INTEGER      NOT NULL,
    error         VARCHAR(500),
    -- A job's or handler's timeline; the runs of one instance; the last failures.
    INDEX ${timedJobsPrefix}run_history_name (name, started_at),
    INDEX ${timedJobsPrefix}run_history_instance (instance_name, started_at),
    INDEX ${timedJobsPrefix}run_history_outcome (outcome, started_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
