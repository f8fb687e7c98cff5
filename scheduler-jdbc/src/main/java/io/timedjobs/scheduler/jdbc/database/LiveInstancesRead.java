package io.timedjobs.scheduler.jdbc.database;

import java.sql.Array;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe; used by {@link ClusterInstance} only: its watcher is set once before the heartbeat
 * starts, then read on the heartbeat's thread. The read of the live instances' names that a
 * heartbeat carries where its database can fold it into the beat (see {@link
 * InstanceSql#liveNamesColumn()}), handed to the one watcher of this instance.
 */
final class LiveInstancesRead {

    /** The column of the beat that reads the live names, or null where the database cannot. */
    private final @Nullable String column;

    /** How long a heartbeat keeps an instance alive: the lease, bound as its negative. */
    private final Duration lease;

    /** Who hears the live instances each beat reads, or null for none. */
    private volatile @Nullable Consumer<List<String>> watcher;

    LiveInstancesRead(@Nullable String column, Duration lease) {
        this.column = column;
        this.lease = lease;
    }

    /** Sets who hears the live instances; once, before the heartbeat starts. */
    void watch(Consumer<List<String>> watcher) {
        this.watcher = Objects.requireNonNull(watcher, "watcher");
    }

    /** Whether a watcher is set and the database can carry the read in a beat. */
    boolean watched() {
        return watcher != null && column != null;
    }

    /** Returns {@code ride} with the read of the live instances added, where one is watched and can be carried. */
    @Nullable
    BeatRide added(@Nullable BeatRide ride) {
        Consumer<List<String>> heard = watcher;
        String read = column;
        if (heard == null || read == null) {
            return ride;
        }
        long minusLease = -lease.toMillis();
        BeatRide.Reader live = (row, databaseTime) -> heard.accept(names(row));
        if (ride == null) {
            return new BeatRide(read, List.of(minusLease), live);
        }
        List<Object> binds = new ArrayList<>(ride.binds());
        binds.add(minusLease);
        return new BeatRide(ride.columns() + ", " + read, binds, (row, databaseTime) -> {
            ride.reader().read(row, databaseTime);
            live.read(row, databaseTime);
        });
    }

    private static List<String> names(ResultSet row) throws SQLException {
        Array array = row.getArray(InstanceSql.LIVE_COLUMN);
        if (array == null) {
            return List.of();
        }
        try {
            List<String> names = new ArrayList<>();
            for (Object value : (Object[]) array.getArray()) {
                if (value != null) {
                    names.add(value.toString());
                }
            }
            return names;
        } finally {
            array.free();
        }
    }
}
