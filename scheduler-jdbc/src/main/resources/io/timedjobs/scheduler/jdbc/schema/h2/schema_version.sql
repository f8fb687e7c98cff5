-- The versions of the Timed Jobs schema applied to this database, one row per script, written by
-- the initializer (timed-jobs.jdbc.initialize-schema). Not used with Flyway or Liquibase, which keep
-- their own history.
CREATE TABLE IF NOT EXISTS ${timedJobsPrefix}schema_version (
    version     INTEGER      NOT NULL PRIMARY KEY,
    script      VARCHAR(200) NOT NULL,
    applied_at  TIMESTAMP WITH TIME ZONE NOT NULL,
    applied_by  VARCHAR(200) NOT NULL
);
