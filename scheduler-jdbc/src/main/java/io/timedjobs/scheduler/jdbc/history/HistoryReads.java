package io.timedjobs.scheduler.jdbc.history;

import io.timedjobs.scheduler.jdbc.database.JdbcDialect;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowMapper;

/** Thread-safe; one per {@link RunHistory}. Its searches beyond a plain list: pages, and a job's fate at an instant. */
final class HistoryReads {

    private final JdbcTemplate jdbc;
    private final JdbcDialect dialect;
    private final RunHistorySql sql;
    private final RowMapper<RunRecord> records;

    HistoryReads(JdbcTemplate jdbc, JdbcDialect dialect, RunHistorySql sql, RowMapper<RunRecord> records) {
        this.jdbc = jdbc;
        this.dialect = dialect;
        this.sql = sql;
        this.records = records;
    }

    /** See {@link RunHistory#page}: reads one record more than the page, to know whether another follows. */
    RunHistoryPage page(RunHistoryQuery query) {
        List<Object> binds = RunHistorySql.findBinds(query);
        binds.set(binds.size() - 1, query.limit() + 1);
        List<RunRecord> found = jdbc.query(sql.find(query, true).sql(), ps -> dialect.bind(ps, binds), records);
        if (found.size() <= query.limit()) {
            return new RunHistoryPage(found, null);
        }
        List<RunRecord> page = found.subList(0, query.limit());
        return new RunHistoryPage(page, page.get(page.size() - 1).id());
    }

    /** See {@link RunHistory#find(long)}. */
    @Nullable
    RunRecord byId(long id) {
        List<RunRecord> found = jdbc.query(sql.byId().sql(), ps -> dialect.bind(ps, List.of(id)), records);
        return found.isEmpty() ? null : found.get(0);
    }

    /** See {@link RunHistory#fateAt}. */
    FireFate fateAt(String job, Instant at) {
        Objects.requireNonNull(job, "job");
        Objects.requireNonNull(at, "at");
        List<RunRecord> upTo = jdbc.query(
                sql.atOrBefore().sql(), ps -> dialect.bind(ps, List.of(job, at, RunHistorySql.LATEST_READ)), records);
        List<RunRecord> covering = new ArrayList<>();
        @Nullable RunRecord before = null;
        for (RunRecord record : upTo) {
            if (record.covers(at)) {
                covering.add(record);
            } else if (before == null || record.fireUntil().isAfter(before.fireUntil())) {
                before = record;
            }
        }
        List<RunRecord> after = jdbc.query(sql.after().sql(), ps -> dialect.bind(ps, List.of(job, at, 1)), records);
        return new FireFate(job, at, covering, before, after.isEmpty() ? null : after.get(0));
    }

    /** See {@link RunHistory#lastFireBefore}. */
    @Nullable
    Instant lastFireBefore(String job, Instant before) {
        List<RunRecord> upTo = jdbc.query(
                sql.atOrBefore().sql(),
                ps -> dialect.bind(ps, List.of(job, before, RunHistorySql.LATEST_READ)),
                records);
        return upTo.stream()
                .map(RunRecord::fireUntil)
                .filter(until -> until.isBefore(before))
                .max(Instant::compareTo)
                .orElse(null);
    }
}
