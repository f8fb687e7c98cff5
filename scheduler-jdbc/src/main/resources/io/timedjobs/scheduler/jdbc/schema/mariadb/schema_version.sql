-- The versions of the Timed Jobs schema applied to this database, one row per script, written by
-- the initializer (timed-jobs.jdbc.initialize-schema). Not used with Flyway or Liquibase, which keep
-- their own history. applied_at is UTC.
CREATE TABLE IF NOT EXISTS ${timedJobsPrefix}schema_version (
    version     INTEGER      NOT NULL PRIMARY KEY,
    script      VARCHAR(200) NOT NULL,
    applied_at  DATETIME(6)  NOT NULL,
    applied_by  VARCHAR(200) NOT NULL
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
