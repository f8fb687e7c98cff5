package io.timedjobs.scheduler.jdbc.database.postgresql;

import io.timedjobs.scheduler.jdbc.cluster.JobSql;
import io.timedjobs.scheduler.jdbc.database.InstanceSql;
import io.timedjobs.scheduler.jdbc.database.JdbcDialect;
import io.timedjobs.scheduler.jdbc.database.Statement;
import io.timedjobs.scheduler.jdbc.database.TableNames;

/**
 * Immutable; any thread. PostgreSQL's statements of the jobs and fires tables where they differ
 * from the portable ones: a fire recorded, the loser's read of why it lost, the run lease taken and
 * the fire announced, all in one statement (data-modifying {@code WITH} clauses, {@code ON
 * CONFLICT}, {@code RETURNING} and {@code pg_notify}).
 */
final class PostgresJobSql extends JobSql {

    /** The binds of a fire recorded and its job read, in order. */
    private static final String[] RECORD_BINDS = {
        "job", "job", "fire", "instance", "fire", "minus horizon millis", "fire", "horizon millis", "definition key"
    };

    private static final String FIRE = "CAST(? AS TIMESTAMP WITH TIME ZONE)";

    PostgresJobSql(JdbcDialect dialect, TableNames tables, InstanceSql instances) {
        super(dialect, tables, instances);
    }

    /** The fire's insert, when the job's row read as {@code job} holds its definition and is not paused. */
    private String recorded() {
        return " recorded AS (INSERT INTO " + fires + " (job_name, fire_at, instance_name, recorded_at)"
                + " SELECT CAST(? AS VARCHAR(300)), " + FIRE + ", CAST(? AS VARCHAR(200)), " + now
                + " WHERE " + FIRE + " > " + nowPlus + " AND " + FIRE + " < " + nowPlus
                + " AND EXISTS (SELECT 1 FROM job WHERE definition_key = ? AND paused = FALSE)"
                + " ON CONFLICT DO NOTHING RETURNING 1)";
    }

    @Override
    public Statement recordFireOrRead(boolean announce) {
        String sql = "WITH job AS (SELECT definition_key, " + PAUSED + " AS paused FROM " + jobs
                + " WHERE job_name = ?)," + recorded()
                + (announce ? ", announced AS (SELECT pg_notify(?, ?) FROM recorded)" : "")
                + " SELECT (SELECT COUNT(*) FROM recorded) AS recorded,"
                + " (SELECT definition_key FROM job) AS definition_key, (SELECT paused FROM job) AS paused"
                + (announce ? ", (SELECT COUNT(*) FROM announced) AS announced" : "");
        return announce
                ? Statement.of(sql, concat(RECORD_BINDS, "channel", "payload"))
                : Statement.of(sql, RECORD_BINDS);
    }

    @Override
    public Statement recordFireAndLease(boolean announce) {
        String sql = "WITH job AS (SELECT definition_key, " + PAUSED + " AS paused, CASE WHEN lease_owner IS NOT NULL"
                + " AND (lease_until < " + now + " OR " + ownerIsDead + ") THEN lease_owner END AS stale_owner"
                + " FROM " + jobs + " WHERE job_name = ?)," + recorded() + ","
                + " leased AS (UPDATE " + jobs + " SET lease_owner = ?, lease_until = " + nowPlus
                + " WHERE job_name = ? AND EXISTS (SELECT 1 FROM recorded)"
                + " AND (lease_owner IS NULL OR lease_owner = ? OR lease_until < " + now + " OR " + ownerIsDead
                + ") RETURNING 1)"
                + (announce ? ", announced AS (SELECT pg_notify(?, ?) FROM recorded)" : "")
                + " SELECT (SELECT COUNT(*) FROM recorded) AS recorded,"
                + " (SELECT definition_key FROM job) AS definition_key, (SELECT paused FROM job) AS paused,"
                + " (SELECT COUNT(*) FROM leased) AS leased, (SELECT stale_owner FROM job) AS stale_owner"
                + (announce ? ", (SELECT COUNT(*) FROM announced) AS announced" : "");
        String[] binds = concat(
                new String[] {"dead after"},
                concat(RECORD_BINDS, "instance", "max run millis", "job", "instance", "dead after"));
        return announce ? Statement.of(sql, concat(binds, "channel", "payload")) : Statement.of(sql, binds);
    }

    private static String[] concat(String[] first, String... more) {
        String[] all = java.util.Arrays.copyOf(first, first.length + more.length);
        System.arraycopy(more, 0, all, first.length, more.length);
        return all;
    }
}
