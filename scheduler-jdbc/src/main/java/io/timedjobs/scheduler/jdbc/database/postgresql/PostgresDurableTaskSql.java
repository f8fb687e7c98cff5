package io.timedjobs.scheduler.jdbc.database.postgresql;

import io.timedjobs.scheduler.jdbc.database.JdbcDialect;
import io.timedjobs.scheduler.jdbc.database.Statement;
import io.timedjobs.scheduler.jdbc.database.TableNames;
import io.timedjobs.scheduler.jdbc.durable.DurableTaskSql;

/**
 * Immutable; any thread. PostgreSQL's statements of the durable tasks table where they differ from
 * the portable ones: a group of fenced starts, or of completions, is one statement that takes the
 * ids and versions as arrays ({@code BIGINT[]}, bound as typed arrays) and returns the rows it let
 * through ({@code RETURNING}), not the portable lock of the rows and change by id (two statements).
 */
final class PostgresDurableTaskSql extends DurableTaskSql {

    PostgresDurableTaskSql(JdbcDialect dialect, TableNames tables) {
        super(dialect, tables);
    }

    @Override
    public Statement startGroup() {
        return Statement.of(
                "UPDATE " + table + " SET state = 'RUNNING', attempts = attempts + 1, lease_until = " + nowPlusMillis
                        // The holder's and the state's checks are written so that no index can answer them:
                        // statistics that a drain's claims have outrun rate this holder's claims (or all
                        // claims) few, and the planner would then read all of them for each group through
                        // the claimed_by or the (state, due_at) index, rather than the group's own rows.
                        + " WHERE " + GROUP_FENCE
                        + " AND COALESCE(claimed_by, '') = ? AND COALESCE(state, '') = 'CLAIMED'"
                        + " RETURNING id, claim_version",
                "lease millis",
                "ids",
                "versions",
                "ids",
                "owner");
    }

    @Override
    public Statement completeOnceGroup() {
        return Statement.of(
                "DELETE FROM " + table + " WHERE " + GROUP_FENCE + " RETURNING id, claim_version",
                "ids",
                "versions",
                "ids");
    }

    /**
     * Each task of a group under the version it was claimed with. The ids go first, as a condition on
     * the primary key that the planner answers with the index whatever it guesses of the array's
     * length or the table's size (a join with the unnested arrays may read the whole table instead);
     * each row's version is then looked up by its id's position.
     */
    private static final String GROUP_FENCE = "id = ANY(CAST(? AS BIGINT[]))"
            + " AND claim_version = (CAST(? AS BIGINT[]))[array_position(CAST(? AS BIGINT[]), id)]";
}
