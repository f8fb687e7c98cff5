package io.timedjobs.scheduler.jdbc.history;

import io.timedjobs.scheduler.jdbc.database.ClusterInstance;
import io.timedjobs.scheduler.jdbc.database.JdbcDialect;
import io.timedjobs.scheduler.jdbc.database.TableNames;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.TransactionException;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Not API: used by the clustered jobs. Thread-safe; one per {@link RunHistory}. Writes the fate of a
 * clustered fire whose run was begun and never ended: its instance died mid-run (killed, out of
 * memory, frozen past its lease, cut off from the database), so that its end was never written. The
 * record is a run of the instance that held the fire, {@link RunOutcome#ABANDONED}: started when
 * the fire was recorded, ended when it was found abandoned, its error a sentence saying its end is
 * unknown.
 *
 * <p>Who finds it: the instance that takes a dead holder's run lease over ({@link #takenOver}), and
 * an instance that registers under the name of a process that died holding run leases ({@link
 * #leftBehind}). The fire is the one the dead instance recorded last for the job (the fires table
 * keeps the fires of a lease's holder while it holds the lease), unless a skip covers it. Written
 * once across the cluster: in a short transaction that locks the job's row, as a new skip record
 * is, and only while the fire has no record (a run's own end, written late, stands). None while an
 * instance of schema version 5 is alive (it reads outcomes it does not know as errors). Never
 * throws for the database: a record that cannot be written is logged and left out.
 */
public final class AbandonedRuns {

    private static final Log logger = LogFactory.getLog(AbandonedRuns.class);

    private final JdbcTemplate jdbc;
    private final TransactionTemplate transaction;
    private final JdbcDialect dialect;
    private final RunHistorySql sql;
    private final AbandonedRunSql statements;
    private final RunHistorySettings settings;

    AbandonedRuns(
            JdbcTemplate jdbc,
            TransactionTemplate transaction,
            JdbcDialect dialect,
            RunHistorySql sql,
            TableNames tables,
            RunHistorySettings settings) {
        this.jdbc = jdbc;
        this.transaction = transaction;
        this.dialect = dialect;
        this.sql = sql;
        this.settings = settings;
        this.statements = new AbandonedRunSql(dialect, tables);
    }

    /** A fire begun by {@code instance}, recorded at {@code recordedAt}, found abandoned at {@code foundAt}. */
    private record Abandoned(String job, Instant fire, String instance, Instant recordedAt, Instant foundAt) {}

    /**
     * {@code taker} took the run lease of {@code job} over from a dead holder: records the fire the
     * holder ran, if it has no record. Returns how many records this call wrote (0 or 1).
     *
     * @param open whether records of outcomes newer than schema version 6 may be written now
     */
    public int takenOver(String job, ClusterInstance taker, BooleanSupplier open) {
        if (!settings.enabled()) {
            return 0;
        }
        try {
            List<Abandoned> found = jdbc.query(
                    statements.lastOfDead().sql(),
                    ps -> dialect.bind(ps, List.of(job, taker.name(), taker.deadAfterMillisParameter(), 1)),
                    (rs, row) -> abandoned(rs));
            return found.isEmpty() || !open.getAsBoolean() ? 0 : write(found.get(0), taker.name());
        } catch (DataAccessException | TransactionException ex) {
            failed(job, ex);
            return 0;
        }
    }

    /**
     * {@code holder} wrote the end of its run of {@code fire} after its lease was taken over (it was
     * frozen or cut off, not dead): its own record stands, and an abandoned one written meanwhile
     * goes, so that the fire has one fate. Costs one statement, on that rare path only; a failure is
     * logged.
     */
    public void endedLate(String job, Instant fire, String holder) {
        if (!settings.enabled()) {
            return;
        }
        try {
            jdbc.update(statements.endedLate().sql(), ps -> dialect.bind(ps, List.of(job, fire, holder)));
        } catch (DataAccessException ex) {
            failed(job, ex);
        }
    }

    /**
     * {@code instance} registers: the run leases held under its name were a dead process's, whose
     * runs ended unknown; records the fire each of those ran, if it has no record. Returns how many
     * records this call wrote. Call before this instance takes any lease.
     *
     * @param open whether records of outcomes newer than schema version 6 may be written now
     */
    public int leftBehind(ClusterInstance instance, BooleanSupplier open) {
        if (!settings.enabled()) {
            return 0;
        }
        try {
            Map<String, Abandoned> latest = new LinkedHashMap<>();
            jdbc.query(
                    statements.leftUnder().sql(), ps -> dialect.bind(ps, List.of(instance.name())), (ResultSet rs) -> {
                        Abandoned one = abandoned(rs);
                        latest.putIfAbsent(one.job(), one); // the latest recorded first
                    });
            if (latest.isEmpty() || !open.getAsBoolean()) {
                return 0;
            }
            int written = 0;
            for (Abandoned one : latest.values()) {
                written += write(one, instance.name());
            }
            return written;
        } catch (DataAccessException | TransactionException ex) {
            failed("(any)", ex);
            return 0;
        }
    }

    private Abandoned abandoned(ResultSet rs) throws SQLException {
        return new Abandoned(
                rs.getString("job_name"),
                Objects.requireNonNull(dialect.readInstant(rs, "fire_at")),
                rs.getString("instance_name"),
                Objects.requireNonNull(dialect.readInstant(rs, "recorded_at")),
                Objects.requireNonNull(dialect.readInstant(rs, "found_at")));
    }

    /** Writes the record of {@code run} unless its fire has one, under the lock of the job's row. */
    private int write(Abandoned run, String finder) {
        long millis =
                Math.max(0, Duration.between(run.recordedAt(), run.foundAt()).toMillis());
        String error = error(run.instance(), finder);
        Integer written = transaction.execute(status -> {
            jdbc.query(sql.lockJob().sql(), ps -> dialect.bind(ps, List.of(run.job())), (ResultSet rs) -> {});
            return jdbc.update(
                    statements.insert().sql(),
                    ps -> dialect.bind(
                            ps,
                            List.of(
                                    run.job(),
                                    run.fire(),
                                    run.instance(),
                                    run.recordedAt(),
                                    millis,
                                    error,
                                    run.fire(),
                                    run.job(),
                                    run.fire())));
        });
        return written == null ? 0 : written;
    }

    /** The record's error: who held the run, and that its end is unknown. */
    static String error(String holder, String finder) {
        String found = holder.equals(finder)
                ? "its instance registered again under the same name"
                : "instance " + finder + " took its run lease over";
        return "Instance " + holder + " began this run and stopped before it wrote its end (killed, frozen or cut"
                + " off from the database): its end is unknown; " + found + ".";
    }

    private void failed(String job, RuntimeException ex) {
        logger.warn(
                "Timed Jobs could not record the abandoned run of job " + job + "; it is left without a record", ex);
    }
}
