package io.timedjobs.scheduler.jdbc.history;

import io.timedjobs.scheduler.jdbc.database.JdbcDialect;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowMapper;

/**
 * Thread-safe; one per {@link RunHistory}. Writes the skips of clustered jobs: consecutive fires
 * skipped for one reason are one record, which grows, and each fire is written at most once across
 * the cluster.
 *
 * <p>A skip of fires that follow the last fire of a job's latest record, a skip for the same reason,
 * extends it: {@code fire_until} moves from where this instance saw it end to the skip's last fire,
 * by a compare-and-set, so that of the instances that noticed the same fire one extends it and the
 * others change nothing. Any other skip is a new record, inserted unless one of the job's latest
 * records covers one of its fires already; two instances inserting the same first fire at once meet
 * the unique index on (name, fire_at, skip_reason).
 *
 * <p>Costs: the instance that extended a job's skip last extends it again in one statement; the
 * others try the same statement, which changes nothing, and take it that the first one did (one
 * statement each). A skip that starts a record reads the job's latest records, then inserts.
 */
final class SkipRecords {

    /** How often a skip reads again when the records changed between its read and its write. */
    private static final int TRIES = 3;

    /**
     * The skip record this instance last saw of a job: its id and reason, the last fire it covered,
     * and whether this instance wrote that fire (then a compare-and-set that changes nothing means
     * the record is gone or moved, and is read again).
     */
    private record Open(long id, SkipReason reason, Instant until, boolean writer) {}

    private final Map<String, Open> open = new ConcurrentHashMap<>();
    private final JdbcTemplate jdbc;
    private final JdbcDialect dialect;
    private final RunHistorySql sql;
    private final RowMapper<RunRecord> records;

    SkipRecords(JdbcTemplate jdbc, JdbcDialect dialect, RunHistorySql sql, RowMapper<RunRecord> records) {
        this.jdbc = jdbc;
        this.dialect = dialect;
        this.sql = sql;
        this.records = records;
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
                && known.reason() == skip.reason()
                && skip.first().equals(next.apply(known.until()))) {
            if (extend(skip, known.id(), known.until())) {
                return true;
            }
            if (!known.writer()) {
                // another instance extended it over this fire, as it did over the ones before
                open.put(skip.job(), new Open(known.id(), skip.reason(), skip.last(), false));
                return false;
            }
        }
        SkippedFires left = skip;
        for (int tries = 0; tries < TRIES; tries++) {
            SkippedFires asked = left;
            List<RunRecord> latest = jdbc.query(
                    sql.atOrBefore().sql(),
                    ps -> dialect.bind(ps, List.of(asked.job(), asked.last(), RunHistorySql.LATEST_READ)),
                    records);
            Instant coveredFrom = null;
            Instant covered = null;
            for (RunRecord record : latest) {
                if (!record.fireUntil().isBefore(asked.first())) {
                    // another instance recorded some of these fires, or one of them ran
                    covered = covered == null || record.fireUntil().isAfter(covered) ? record.fireUntil() : covered;
                    coveredFrom = coveredFrom == null || record.fireAt().isBefore(coveredFrom)
                            ? record.fireAt()
                            : coveredFrom;
                    if (record.skipReason() == asked.reason()) {
                        open.put(asked.job(), new Open(record.id(), asked.reason(), record.fireUntil(), false));
                    }
                }
            }
            if (covered != null && coveredFrom != null) {
                // the fires before those covered, else the ones after them, are left to write
                SkippedFires before = coveredFrom.isAfter(asked.first()) ? upTo(asked, coveredFrom, next) : null;
                left = before != null ? before : covered.isBefore(asked.last()) ? after(asked, covered, next) : null;
                if (left == null) {
                    return false;
                }
                continue;
            }
            RunRecord last = latest.isEmpty() ? null : latest.get(0);
            if (last != null && last.skipReason() == asked.reason() && follows(last.fireUntil(), asked, next)) {
                if (extend(asked, last.id(), last.fireUntil())) {
                    return true;
                }
                continue; // it changed meanwhile
            }
            try {
                if (jdbc.update(sql.insertSkip().sql(), ps -> dialect.bind(ps, insertBinds(asked))) == 1) {
                    open.remove(asked.job()); // its id is read with the next skip
                    return true;
                }
            } catch (DuplicateKeyException ex) {
                return false; // another instance inserted the same skip at the same moment
            }
        }
        return false;
    }

    /**
     * Returns the fires of {@code skip} before {@code end}, or null when they cannot be counted (the
     * job has no step).
     */
    private static @Nullable SkippedFires upTo(
            SkippedFires skip, Instant end, @Nullable UnaryOperator<@Nullable Instant> next) {
        if (next == null) {
            return null;
        }
        Instant last = skip.first();
        long fires = 1;
        for (Instant at = next.apply(last);
                at != null && at.isBefore(end) && fires < skip.fires();
                at = next.apply(at)) {
            last = at;
            fires++;
        }
        return new SkippedFires(skip.job(), skip.first(), last, fires, skip.reason(), skip.instance());
    }

    /**
     * Returns the fires of {@code skip} after {@code covered}, or null when there are none or they
     * cannot be counted (the job has no step).
     */
    private static @Nullable SkippedFires after(
            SkippedFires skip, Instant covered, @Nullable UnaryOperator<@Nullable Instant> next) {
        if (next == null) {
            return null;
        }
        Instant first = next.apply(covered);
        if (first == null || first.isAfter(skip.last())) {
            return null;
        }
        long fires = 1;
        for (Instant at = next.apply(first);
                at != null && !at.isAfter(skip.last()) && fires < skip.fires();
                at = next.apply(at)) {
            fires++;
        }
        return new SkippedFires(skip.job(), first, skip.last(), fires, skip.reason(), skip.instance());
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
            open.put(skip.job(), new Open(id, skip.reason(), skip.last(), true));
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
