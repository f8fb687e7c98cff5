package io.timedjobs.scheduler.jdbc.cluster;

import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.ClusterInstance;
import io.timedjobs.scheduler.jdbc.database.JdbcDialect;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Thread-safe (stateless): the statements of catch-up after downtime (see {@link CatchUpRun}), run
 * on the scheduler's bounded connections for one instance; reached through {@link
 * JobStore#catchUp()}. Each job whose policy catches up keeps a watermark in its row, {@code
 * caught_up_to}: the latest nominal fire run or skipped on purpose, moved only forward, by
 * compare-and-set.
 */
final class CatchUpStore {

    private final JdbcTemplate jdbc;
    private final JdbcDialect dialect;
    private final ClusterInstance instance;
    private final CatchUpSql sql;
    private final JobStore jobs;

    /** Transactions of the claims that move a watermark and record a fire together. */
    private final TransactionTemplate transaction;

    CatchUpStore(ClusterDatabase database, ClusterInstance instance, JobStore jobs) {
        this.jdbc = database.jdbc();
        this.dialect = database.dialect();
        this.instance = instance;
        this.sql = new CatchUpSql(database.dialect(), database.tables());
        this.jobs = jobs;
        // The template's own data source, so that its statements join these transactions.
        this.transaction = new TransactionTemplate(new DataSourceTransactionManager(database.boundedDataSource()));
    }

    /** Returns the job's catch-up watermark: the latest fire run or skipped on purpose; null if none. */
    @Nullable
    Instant watermark(String job) {
        return jdbc.query(
                sql.readWatermark().sql(), rs -> rs.next() ? dialect.readInstant(rs, "caught_up_to") : null, job);
    }

    /**
     * Returns the fires recorded for the job (by any instance, so begun there) from {@code from} to
     * {@code to}, both included; the records live twice the horizon.
     */
    Set<Instant> recordedFires(String job, Instant from, Instant to) {
        Set<Instant> recorded = new HashSet<>();
        jdbc.query(sql.recordedFires().sql(), ps -> dialect.bind(ps, List.of(job, from, to)), (ResultSet rs) -> {
            recorded.add(dialect.readInstant(rs, "fire_at"));
        });
        return recorded;
    }

    /** Returns the latest fire recorded for the job (the records live twice the horizon), or null. */
    @Nullable
    Instant lastRecordedFire(String job) {
        return jdbc.query(
                sql.lastRecordedFire().sql(), rs -> rs.next() ? dialect.readInstant(rs, "fire_at") : null, job);
    }

    /**
     * As {@link JobStore#recordFire}, for a job whose policy catches up: in one transaction, moves
     * the job's watermark to the fire (compare-and-set, see {@link CatchUpSql#advanceWatermark()}) and
     * records the fire; both or neither. Returns whether this instance got the fire.
     */
    boolean recordFireAndAdvance(String job, String definitionKey, Instant fireAt, Duration horizon) {
        return Boolean.TRUE.equals(transaction.execute(status -> {
            if (!advance(job, definitionKey, fireAt) || !jobs.recordFire(job, definitionKey, fireAt, horizon)) {
                status.setRollbackOnly();
                return false;
            }
            return true;
        }));
    }

    /**
     * Claims a missed fire for a catch-up run: in one transaction, moves the job's watermark to it
     * (compare-and-set: refused once the watermark reached it or passed it) and records it, whatever
     * its age. Returns whether this instance got it: at most one caller per fire, ever.
     */
    boolean claimMissedFire(String job, String definitionKey, Instant fireAt) {
        return Boolean.TRUE.equals(transaction.execute(status -> {
            if (!advance(job, definitionKey, fireAt)
                    || dialect.insertIfAbsent(
                                    jdbc, sql.recordMissedFire().sql(), job, dialect.bind(fireAt), instance.name())
                            != 1) {
                status.setRollbackOnly();
                return false;
            }
            return true;
        }));
    }

    /**
     * Claims a missed fire of a paused job for its skip: its record in the fires table, whatever its
     * age (as {@link #claimMissedFire} writes one), if absent; the watermark does not move. Returns
     * whether this instance wrote it: of a skip and a catch-up run of one fire, the first stands.
     */
    boolean claimPausedFire(String job, Instant fireAt) {
        return dialect.insertIfAbsent(jdbc, sql.recordMissedFire().sql(), job, dialect.bind(fireAt), instance.name())
                == 1;
    }

    /**
     * Moves the watermark from {@code read} (null for none) to {@code to} if it still holds {@code
     * read}; returns whether it did.
     */
    boolean skipMissedFires(String job, String definitionKey, @Nullable Instant read, Instant to) {
        if (read == null) {
            return jdbc.update(sql.skipMissedFiresFromNone().sql(), dialect.bind(to), job, definitionKey) == 1;
        }
        return jdbc.update(sql.skipMissedFires().sql(), dialect.bind(to), job, definitionKey, dialect.bind(read)) == 1;
    }

    private boolean advance(String job, String definitionKey, Instant fireAt) {
        Object at = dialect.bind(fireAt);
        return jdbc.update(sql.advanceWatermark().sql(), at, job, definitionKey, at) == 1;
    }
}
