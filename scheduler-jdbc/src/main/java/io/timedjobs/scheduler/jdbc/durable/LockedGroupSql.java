package io.timedjobs.scheduler.jdbc.durable;

import io.timedjobs.scheduler.jdbc.database.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Immutable; any thread; used by {@link GroupStatements} only. The portable statements of a group of
 * fenced starts or completions (see {@link DurableTaskSql#startGroup()}): the group's rows locked
 * and read, then those that pass their fence changed by id, in one transaction. Plain SQL that every
 * supported database reads alike; a database with its own statement for a group does not use them.
 */
final class LockedGroupSql {

    private final String table;
    private final String nowPlusMillis;

    LockedGroupSql(DurableTaskSql sql) {
        this.table = sql.table;
        this.nowPlusMillis = sql.nowPlusMillis;
    }

    /**
     * Locks the rows of a group of {@code count} tasks, by id in ascending order, and reads what their
     * fence is decided on (its starts or completions are then written by id in the same transaction,
     * see {@link #startLocked} and {@link #completeLocked}): returns
     * {@code id, claim_version, claimed_by, state}, bound as the ids.
     */
    Statement lockGroup(int count) {
        Statement ids = idIn(count);
        return new Statement(
                "SELECT id, claim_version, claimed_by, state FROM " + table + " WHERE " + ids.sql() + " ORDER BY id"
                        + " FOR UPDATE",
                ids.binds());
    }

    /** {@link DurableTaskSql#start()} of {@code count} tasks locked by {@link #lockGroup} and found fit, by id. */
    Statement startLocked(int count) {
        Statement ids = idIn(count);
        List<String> binds = new ArrayList<>();
        binds.add("lease millis");
        binds.addAll(ids.binds());
        return new Statement(
                "UPDATE " + table + " SET state = 'RUNNING', attempts = attempts + 1, lease_until = " + nowPlusMillis
                        + " WHERE " + ids.sql(),
                binds);
    }

    /** {@link DurableTaskSql#completeOnce()} of {@code count} tasks locked by {@link #lockGroup} and found fit, by id. */
    Statement completeLocked(int count) {
        Statement ids = idIn(count);
        return new Statement("DELETE FROM " + table + " WHERE " + ids.sql(), ids.binds());
    }

    /** {@code id IN (?, ...)} with {@code count} parameters, each bound as a {@code long}. */
    private static Statement idIn(int count) {
        if (count < 1) {
            throw new IllegalArgumentException("A group has at least one task, got " + count);
        }
        return new Statement(
                "id IN (" + String.join(", ", Collections.nCopies(count, "?")) + ")", Collections.nCopies(count, "id"));
    }
}
