-- Timed Jobs schema, version 2, for MariaDB 10.6 or later and MySQL 8.0.1 or later: job definitions
-- that change from one deploy to the next.
-- It only adds (expand now, contract in a later version): instances of version 1 keep running beside
-- it, and never read what it adds. Placeholder ${timedJobsPrefix}, types and table options as in V1.
-- Each table's new columns come in one ALTER TABLE, which either happens whole or not at all.

-- The definition each job fires by (definition_key, a hash of kind, schedule, zone and initial
-- delay), since when and who set it. user_paused is the pause of version 2 instances; paused is
-- what version 1 instances obey: the pause, or true while a changed definition fences them off
-- (fenced), so that no version 1 instance fires a definition the job no longer has.
ALTER TABLE ${timedJobsPrefix}jobs
    ADD COLUMN definition_key VARCHAR(64),
    ADD COLUMN defined_at     DATETIME(6),
    ADD COLUMN defined_by     VARCHAR(200),
    ADD COLUMN user_paused    BOOLEAN,
    ADD COLUMN fenced         BOOLEAN DEFAULT FALSE NOT NULL;

-- Which schema version an instance's code knows; null for version 1 instances.
ALTER TABLE ${timedJobsPrefix}instances ADD COLUMN schema_version INTEGER;

-- Every definition a job has had, and when it was first deployed: a definition the job never had
-- takes over when its first instance starts; one it had before only when no live instance carries
-- the current one (a roll-back, or an old instance restarting during a rollout, which then waits).
CREATE TABLE IF NOT EXISTS ${timedJobsPrefix}job_definitions (
    job_name       VARCHAR(300) NOT NULL,
    definition_key VARCHAR(64)  NOT NULL,
    definition     VARCHAR(600) NOT NULL,
    first_seen_at  DATETIME(6)  NOT NULL,
    PRIMARY KEY (job_name, definition_key)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Which definition of each job each instance carries; rows of instances gone are ignored by the
-- liveness of the instances table, and pruned with them.
CREATE TABLE IF NOT EXISTS ${timedJobsPrefix}job_carriers (
    job_name       VARCHAR(300) NOT NULL,
    instance_name  VARCHAR(200) NOT NULL,
    definition_key VARCHAR(64)  NOT NULL,
    PRIMARY KEY (job_name, instance_name)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
