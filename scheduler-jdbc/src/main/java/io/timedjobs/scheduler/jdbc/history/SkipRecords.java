package io.timedjobs.scheduler.jdbc.history;

import io.timedjobs.scheduler.jdbc.database.JdbcDialect;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.transaction.TransactionException;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Thread-safe; one per {@link RunHistory}. Writes the skips of clustered jobs: consecutive fires
 * skipped for one reason are one record, which grows, and each fire is written at most once across
 * the cluster, for one reason.
 *
 * <p>A skip for a {@linkplain SkipReason#claimed() claimed} reason (its instance holds each fire's
 * record in the fires table, so no other fate can be written for it) of fires that follow the last
 * fire of the job's latest record, for the same reason, extends it: {@code fire_until} moves from
 * where this instance saw it end to the skip's last fire, by a compare-and-set. Only the
 * instance that claimed a fire extends the record over it, so a compare-and-set that changes
 * nothing means the record is gone (pruned by count or age): the skip is then written as any
 * other, and no claimed fire is left without a fate. Any other skip, and a skip for another reason always, is written in a short transaction that first locks
 * the job's row in the jobs table: one job's new records are written one at a time across the
 * cluster, each writer reading what the one before wrote (a job with no row there is not
 * serialised: then the unique index on (name, fire_at, skip_reason) catches only an equal first
 * fire). The fires the job's latest records already cover (a run, or a skip for any reason) are
 * left out: what is written is each gap they leave in the skip, before, between and after them, one
 * record each. A writer that meets the index, or loses a deadlock, reads again and writes what is
 * left.
 *
 * <p>Costs: for a claimed reason, a fire which follows the record's last one is one compare-and-set
 * by the instance that claimed it (and, once after a prune, the locked write). Any other skip locks the job's row, reads the job's latest records, inserts or
 * extends, commits.
 */
final class SkipRecords {

    /** How often a skip reads again when the records changed between its read and its write. */
    private static final int TRIES = 3;

    /**
     * The skip record this instance last saw of a job: its id and reason, and the last fire it
     * covered.
     */
    private record Open(long id, SkipReason reason, Instant until) {}

    private static final Log logger = LogFactory.getLog(RunHistory.class);

    /** Whether the last skip failed: the first failure is a WARN, the next DEBUG until one goes through. */
    private final AtomicBoolean failing = new AtomicBoolean();

    private final Map<String, Open> open = new ConcurrentHashMap<>();
    private final JdbcTemplate jdbc;
    private final JdbcDialect dialect;
    private final RunHistorySql sql;
    private final RowMapper<RunRecord> records;

    private final TransactionTemplate transaction;

    /**
     * @param transaction transactions on {@code jdbc}'s data source, at READ COMMITTED: each read
     *     sees what the writer before it committed
     */
    SkipRecords(
            JdbcTemplate jdbc,
            TransactionTemplate transaction,
            JdbcDialect dialect,
            RunHistorySql sql,
            RowMapper<RunRecord> records) {
        this.jdbc = jdbc;
        this.transaction = transaction;
        this.dialect = dialect;
        this.sql = sql;
        this.records = records;
    }

    /**
     * As {@link #record}, but never throws for the database: a skip that cannot be written is logged
     * (a WARN, then DEBUG until one goes through; a flag of the skips' own, so that a run's record
     * that fails later is still a WARN) and left out.
     */
    boolean recordOrLog(SkippedFires skip, @Nullable UnaryOperator<@Nullable Instant> next) {
        try {
            boolean wrote = record(skip, next);
            failing.set(false);
            return wrote;
        } catch (DataAccessException | TransactionException ex) {
            String failed = "Timed Jobs could not record " + skip.fires() + " skipped fire(s) of job " + skip.job()
                    + " (" + skip.reason() + ")";
            if (failing.compareAndSet(false, true)) {
                logger.warn(failed + "; further failures of skips are logged at DEBUG until one is written", ex);
            } else if (logger.isDebugEnabled()) {
                logger.debug(failed, ex);
            }
            return false;
        }
    }

    /**
     * Records {@code skip} unless another instance did; returns whether this call wrote it.
     *
     * @param next the job's step from one nominal fire to the next, to tell fires that follow one
     *     another; null when the job has none (then a skip is always checked against the records)
     */
    boolean record(SkippedFires skip, @Nullable UnaryOperator<@Nullable Instant> next) {
        Open known = open.get(skip.job());
        if (next != null
                && known != null
                && skip.reason().claimed()
                && known.reason() == skip.reason()
                && skip.first().equals(next.apply(known.until()))) {
            if (extend(skip, known.id(), known.until())) {
                return true;
            }
            // Only this instance claimed these fires, so none other extended the record over them:
            // it was pruned. Written below, as a new record.
            open.remove(skip.job());
        }
        for (int round = 0; round < TRIES; round++) {
            try {
                return Boolean.TRUE.equals(transaction.execute(status -> {
                    // one writer of the job's new records at a time: the next reads what this one wrote
                    jdbc.query(sql.lockJob().sql(), ps -> dialect.bind(ps, List.of(skip.job())), (ResultSet rs) -> {});
                    return write(skip, next);
                }));
            } catch (DuplicateKeyException | PessimisticLockingFailureException ex) {
                // another instance wrote some of these fires at the same moment (or a deadlock chose
                // this one): read again and write the rest
            }
        }
        return false;
    }

    /** Writes what the job's latest records leave of {@code skip}: a new record, or an extension. */
    private boolean write(SkippedFires skip, @Nullable UnaryOperator<@Nullable Instant> next) {
        SkippedFires left = skip;
        for (int tries = 0; tries < TRIES; tries++) {
            SkippedFires asked = left;
            List<RunRecord> latest = jdbc.query(
                    sql.atOrBefore().sql(),
                    ps -> dialect.bind(ps, List.of(asked.job(), asked.last(), RunHistorySql.LATEST_READ)),
                    records);
            List<RunRecord> covering = new ArrayList<>();
            for (RunRecord record : latest) {
                if (!record.fireUntil().isBefore(asked.first())) {
                    // another instance recorded some of these fires, or one of them ran
                    covering.add(record);
                    if (record.skipReason() == asked.reason()) {
                        open.put(asked.job(), new Open(record.id(), asked.reason(), record.fireUntil()));
                    }
                }
            }
            if (!covering.isEmpty()) {
                // the fires before, between and after those covered are left to write, each range
                // written as any other skip (it may extend the record before it)
                boolean wrote = false;
                for (SkippedFires gap : gaps(asked, covering, next)) {
                    wrote |= write(gap, next);
                }
                return wrote;
            }
            RunRecord last = latest.isEmpty() ? null : latest.get(0);
            if (last != null && last.skipReason() == asked.reason() && follows(last.fireUntil(), asked, next)) {
                if (extend(asked, last.id(), last.fireUntil())) {
                    return true;
                }
                continue; // it changed meanwhile
            }
            if (jdbc.update(sql.insertSkip().sql(), ps -> dialect.bind(ps, insertBinds(asked))) == 1) {
                open.remove(asked.job()); // its id is read with the next skip
                return true;
            }
        }
        return false;
    }

    /**
     * Returns the ranges of {@code skip}'s fires that none of {@code covering} covers, in order:
     * before the first of them, between them, after the last; none when they cannot be counted (the
     * job has no step). Steps through the fires, at most as many as the skip has.
     */
    static List<SkippedFires> gaps(
            SkippedFires skip, List<RunRecord> covering, @Nullable UnaryOperator<@Nullable Instant> next) {
        List<SkippedFires> gaps = new ArrayList<>();
        if (next == null) {
            return gaps;
        }
        Instant from = null;
        Instant until = null;
        long fires = 0;
        long stepped = 0;
        for (Instant at = skip.first();
                at != null && !at.isAfter(skip.last()) && stepped < skip.fires();
                at = next.apply(at), stepped++) {
            Instant fire = at;
            if (covering.stream().noneMatch(record -> record.covers(fire))) {
                from = from == null ? fire : from;
                until = fire;
                fires++;
            } else if (from != null) {
                gaps.add(new SkippedFires(skip.job(), from, until, fires, skip.reason(), skip.instance()));
                from = null;
                fires = 0;
            }
        }
        if (from != null) {
            gaps.add(new SkippedFires(skip.job(), from, until, fires, skip.reason(), skip.instance()));
        }
        return gaps;
    }

    private boolean extend(SkippedFires skip, long id, Instant seenUntil) {
        boolean extended = jdbc.update(
                        sql.extendSkip().sql(),
                        ps -> dialect.bind(
                                ps,
                                List.of(
                                        skip.last(),
                                        skip.fires(),
                                        id,
                                        skip.reason().name(),
                                        seenUntil)))
                == 1;
        if (extended) {
            open.put(skip.job(), new Open(id, skip.reason(), skip.last()));
        }
        return extended;
    }

    /** Whether the skip's first fire is the one right after {@code until}; any later one when the job has no step. */
    private static boolean follows(Instant until, SkippedFires skip, @Nullable UnaryOperator<@Nullable Instant> next) {
        return next == null ? until.isBefore(skip.first()) : skip.first().equals(next.apply(until));
    }

    private static List<Object> insertBinds(SkippedFires skip) {
        return List.of(
                skip.job(),
                skip.first(),
                skip.instance(),
                skip.last(),
                skip.fires(),
                skip.reason().name(),
                skip.job(),
                skip.last(),
                RunHistorySql.LATEST_READ,
                skip.first());
    }
}
