package io.timedjobs.scheduler.jdbc.database;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * Immutable; made and read on the heartbeat's thread. A query a poll action asks the next heartbeat
 * to carry (see {@link ClusterHeartbeat#setBeatRide}), where the dialect lets the heartbeat's update
 * return a row with more columns than the database's time ({@link JdbcDialect#returningNowWith}):
 * so that an instance with nothing to do learns what it needs without a statement of its own.
 *
 * @param columns SQL select-list expressions, read after the database's time (from column 2 on)
 * @param binds the binds of {@code columns}, bound through the dialect after the heartbeat's own
 * @param reader reads the carried columns of the row the heartbeat returned
 */
public record BeatRide(String columns, List<?> binds, Reader reader) {

    public BeatRide {
        Objects.requireNonNull(columns, "columns");
        binds = List.copyOf(binds);
        Objects.requireNonNull(reader, "reader");
    }

    /** Reads the carried columns. */
    @FunctionalInterface
    public interface Reader {

        /**
         * @param row the heartbeat's row, its first column the database's time
         * @param databaseTime that time
         */
        void read(ResultSet row, Instant databaseTime) throws SQLException;
    }
}
