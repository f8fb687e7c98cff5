-- Timed Jobs schema, version 1, for MariaDB 10.6 or later and MySQL 8.0.1 or later.
-- Table names start with the placeholder ${timedJobsPrefix} (timed_jobs_ unless configured): the
-- initializer fills it in; with Flyway or Liquibase, define it as a placeholder or property.
-- Times are DATETIME(6) holding UTC (TIMESTAMP would be shifted by the session's time zone, and ends
-- in 2038), compared with UTC_TIMESTAMP(6), the database's clock in UTC.
-- Tables are InnoDB (row locks, SKIP LOCKED) in utf8mb4 with a binary collation, so that keys that
-- differ in case or accents stay apart as they do on PostgreSQL. Keys stay within InnoDB's 3072 bytes
-- (4 bytes a character). Indexes are declared in the tables: MySQL has no CREATE INDEX IF NOT EXISTS.
-- DDL commits at once on these databases: a script that stopped halfway is finished by hand.

-- One row per running instance, renewed every poll interval, removed at graceful shutdown.
CREATE TABLE IF NOT EXISTS ${timedJobsPrefix}instances (
    instance_name VARCHAR(200) NOT NULL PRIMARY KEY,
    started_at    DATETIME(6)  NOT NULL,
    heartbeat_at  DATETIME(6)  NOT NULL
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- One row per clustered @Scheduled job: its definition, what instances agree on, its run lease,
-- and whether it is paused (every instance skips its fires until it is resumed).
CREATE TABLE IF NOT EXISTS ${timedJobsPrefix}jobs (
    job_name      VARCHAR(300) NOT NULL PRIMARY KEY,
    kind          VARCHAR(16)  NOT NULL,
    schedule      VARCHAR(200) NOT NULL,
    time_zone     VARCHAR(64),
    anchor_at     DATETIME(6),
    next_fire_at  DATETIME(6),
    lease_owner   VARCHAR(200),
    lease_until   DATETIME(6),
    paused        BOOLEAN      NOT NULL DEFAULT FALSE,
    created_at    DATETIME(6)  NOT NULL
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- One row per fire that ran: the key (job_name, fire_at) can be recorded once. Pruned by age.
CREATE TABLE IF NOT EXISTS ${timedJobsPrefix}fires (
    job_name      VARCHAR(300) NOT NULL,
    fire_at       DATETIME(6)  NOT NULL,
    instance_name VARCHAR(200) NOT NULL,
    recorded_at   DATETIME(6)  NOT NULL,
    PRIMARY KEY (job_name, fire_at),
    INDEX ${timedJobsPrefix}fires_fire_at (fire_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Durable tasks: one row per (handler, task_key), one-off or recurring (schedule not null).
-- state: PENDING (waiting in the database), CLAIMED (in one instance's in-memory queue),
-- RUNNING (started under claim_version), FAILED (out of attempts; kept for inspection).
-- fire_at is the nominal instant (a retry moves due_at only; a recurring task's next fire follows fire_at).
-- claim_version fences every start and completion: a claim, a replacement or a reschedule bumps it.
-- payload is LONGTEXT: TEXT would hold 64 KB only.
CREATE TABLE IF NOT EXISTS ${timedJobsPrefix}tasks (
    id            BIGINT       NOT NULL AUTO_INCREMENT PRIMARY KEY,
    handler       VARCHAR(200) NOT NULL,
    task_key      VARCHAR(200) NOT NULL,
    payload       LONGTEXT,
    schedule      VARCHAR(200),
    fire_at       DATETIME(6)  NOT NULL,
    due_at        DATETIME(6)  NOT NULL,
    state         VARCHAR(16)  NOT NULL,
    attempts      INTEGER      NOT NULL DEFAULT 0,
    last_error    VARCHAR(2000),
    claimed_by    VARCHAR(200),
    claim_version BIGINT       NOT NULL DEFAULT 0,
    lease_until   DATETIME(6),
    created_at    DATETIME(6)  NOT NULL,
    CONSTRAINT ${timedJobsPrefix}tasks_handler_key UNIQUE (handler, task_key),
    INDEX ${timedJobsPrefix}tasks_state_due (state, due_at),
    INDEX ${timedJobsPrefix}tasks_claimed_by (claimed_by)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
