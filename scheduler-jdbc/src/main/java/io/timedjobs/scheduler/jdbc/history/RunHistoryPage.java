package io.timedjobs.scheduler.jdbc.history;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Immutable; any thread. One page of {@link RunHistory#page(RunHistoryQuery)}: records latest
 * written first (highest id first), and the cursor of the next page.
 *
 * <p>Pages are a keyset on the record's id: the next page holds the records of the same query with
 * a lower id than the last of this one. Records written meanwhile get higher ids, so paging on never
 * repeats nor misses a record, however many are written while a person pages; a skip that grows
 * meanwhile (see {@link RunRecord#fireUntil()}) keeps its id and its place. Records pruned meanwhile
 * are gone from the pages not read yet.
 *
 * @param records the page's records, highest id first, at most the query's limit
 * @param nextCursor the cursor of the next page ({@link RunHistoryQuery#cursor(long)}), or null when
 *     this page is the last
 */
public record RunHistoryPage(
        List<RunRecord> records, @Nullable Long nextCursor) {

    public RunHistoryPage {
        records = List.copyOf(records);
    }
}
