package io.timedjobs.scheduler.jdbc.cluster;

import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.ClusterInstance;
import io.timedjobs.scheduler.jdbc.database.JdbcDialect;
import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Thread-safe (stateless): the statements of a job's definitions for one instance, reached through
 * {@link JobStore#definitions()} by {@link DefinitionRollout}, which settles which definition fires.
 * They write the job's row under a definition, record which definitions each instance carries, and
 * switch the row from one definition to another by compare-and-set; the fires themselves, which the
 * database records only under the row's definition, stay with {@link JobStore}. Throws Spring's
 * {@code DataAccessException} when the database fails, as the job store does.
 */
final class JobDefinitionStore {

    /** A definition of a job as recorded: its words and when an instance first carried it. */
    record RecordedDefinition(String text, Instant firstSeenAt) {}

    private final JdbcTemplate jdbc;
    private final JdbcDialect dialect;
    private final ClusterInstance instance;
    private final JobSql sql;

    /** The job store, whose read of the row is the one every decision here starts from. */
    private final JobStore jobs;

    JobDefinitionStore(ClusterDatabase database, ClusterInstance instance, JobStore jobs) {
        this.jdbc = database.jdbc();
        this.dialect = database.dialect();
        this.instance = instance;
        this.sql = JobSql.of(database.dialect(), database.tables(), instance.sql());
        this.jobs = jobs;
    }

    /**
     * Writes the job's row under this instance's definition unless it exists, records the definition
     * and that this instance carries it, fills in the anchor (fixed rate) or next fire (fixed delay)
     * if a row of this definition lacks it, and returns the row as the database holds it now, which
     * may hold another definition (see {@link DefinitionRollout}).
     */
    JobStore.JobRow register(
            String job, JobDefinition definition, @Nullable Instant anchorAt, @Nullable Instant nextFireAt) {
        String key = definition.key();
        dialect.insertIfAbsent(
                jdbc,
                sql.register().sql(),
                job,
                definition.kind(),
                definition.schedule(),
                definition.timeZone(),
                anchorAt == null ? null : dialect.bind(anchorAt),
                nextFireAt == null ? null : dialect.bind(nextFireAt),
                key,
                instance.name());
        dialect.insertIfAbsent(jdbc, sql.recordDefinition().sql(), job, key, definition.text());
        jdbc.update(sql.dropCarrier().sql(), job, instance.name());
        jdbc.update(sql.carry().sql(), job, instance.name(), key);
        JobStore.JobRow row = jobs.read(job);
        if (row != null && key.equals(row.definitionKey())) {
            if (anchorAt != null && row.anchorAt() == null) {
                jdbc.update(sql.fillAnchor().sql(), dialect.bind(anchorAt), job);
                row = jobs.read(job);
            } else if (nextFireAt != null && row.nextFireAt() == null && row.leaseOwner() == null) {
                jdbc.update(sql.fillNextFire().sql(), dialect.bind(nextFireAt), job);
                row = jobs.read(job);
            }
        }
        if (row == null) {
            throw new IllegalStateException("Row of job " + job + " vanished right after it was written");
        }
        return row;
    }

    /** Returns a recorded definition of the job, or null if no instance has carried it. */
    @Nullable
    RecordedDefinition definition(String job, String key) {
        return jdbc.query(
                sql.readDefinition().sql(),
                rs -> rs.next()
                        ? new RecordedDefinition(
                                rs.getString("definition"),
                                Objects.requireNonNull(dialect.readInstant(rs, "first_seen_at")))
                        : null,
                job,
                key);
    }

    /** Returns how many live instances other than this one carry a definition of the job. */
    int liveCarriers(String job, String key) {
        Integer count = jdbc.queryForObject(
                sql.liveCarriers().sql(),
                Integer.class,
                job,
                key,
                instance.name(),
                instance.deadAfterMillisParameter());
        return count == null ? 0 : count;
    }

    /**
     * Gives a row of schema version 1 that holds this definition (kind, schedule, zone) its key;
     * returns whether it did.
     */
    boolean adopt(String job, JobDefinition definition) {
        String zone = definition.timeZone();
        return jdbc.update(
                        sql.adopt().sql(),
                        definition.key(),
                        instance.name(),
                        job,
                        definition.kind(),
                        definition.schedule(),
                        zone == null ? "" : zone)
                == 1;
    }

    /**
     * Makes {@code definition} the job's from now, with a new anchor or next fire, if the row still
     * holds the definition {@code keyRead} (null for none); returns whether it did.
     */
    boolean takeOver(
            String job,
            JobDefinition definition,
            @Nullable Instant anchorAt,
            @Nullable Instant nextFireAt,
            @Nullable String keyRead) {
        long deadAfter = instance.deadAfterMillisParameter();
        return jdbc.update(
                        sql.takeOver().sql(),
                        deadAfter,
                        definition.kind(),
                        definition.schedule(),
                        definition.timeZone(),
                        anchorAt == null ? null : dialect.bind(anchorAt),
                        nextFireAt == null ? null : dialect.bind(nextFireAt),
                        definition.key(),
                        instance.name(),
                        deadAfter,
                        job,
                        keyRead == null ? "" : keyRead)
                == 1;
    }

    /** Lifts the fence of a changed definition once no version 1 instance is alive; returns whether it did. */
    boolean liftFence(String job) {
        return jdbc.update(sql.liftFence().sql(), job, instance.deadAfterMillisParameter()) == 1;
    }
}
