-- Timed Jobs schema, version 1, for H2 2.x.
-- Written with the default table prefix timed_jobs_; to use another prefix with Flyway or
-- Liquibase, copy this file and replace every timed_jobs_ with it.
-- Times are TIMESTAMP WITH TIME ZONE and compared with CURRENT_TIMESTAMP, the database's clock.

-- One row per running instance, renewed every poll interval, removed at graceful shutdown.
CREATE TABLE IF NOT EXISTS timed_jobs_instances (
    instance_name VARCHAR(200)             NOT NULL PRIMARY KEY,
    started_at    TIMESTAMP WITH TIME ZONE NOT NULL,
    heartbeat_at  TIMESTAMP WITH TIME ZONE NOT NULL
);

-- One row per clustered @Scheduled job: its definition, what instances agree on, and its run lease.
CREATE TABLE IF NOT EXISTS timed_jobs_jobs (
    job_name      VARCHAR(300)             NOT NULL PRIMARY KEY,
    kind          VARCHAR(16)              NOT NULL,
    schedule      VARCHAR(200)             NOT NULL,
    time_zone     VARCHAR(64),
    anchor_at     TIMESTAMP WITH TIME ZONE,
    next_fire_at  TIMESTAMP WITH TIME ZONE,
    lease_owner   VARCHAR(200),
    lease_until   TIMESTAMP WITH TIME ZONE,
    created_at    TIMESTAMP WITH TIME ZONE NOT NULL
);

-- One row per fire that ran: the key (job_name, fire_at) can be recorded once. Pruned by age.
CREATE TABLE IF NOT EXISTS timed_jobs_fires (
    job_name      VARCHAR(300)             NOT NULL,
    fire_at       TIMESTAMP WITH TIME ZONE NOT NULL,
    instance_name VARCHAR(200)             NOT NULL,
    recorded_at   TIMESTAMP WITH TIME ZONE NOT NULL,
    PRIMARY KEY (job_name, fire_at)
);

CREATE INDEX IF NOT EXISTS timed_jobs_fires_fire_at ON timed_jobs_fires (fire_at);
