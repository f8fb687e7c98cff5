package io.timedjobs.scheduler.jdbc.cluster;

import io.timedjobs.scheduler.jdbc.database.ClusterInstance;
import io.timedjobs.scheduler.jdbc.database.Statement;
import java.time.Duration;
import java.util.function.LongSupplier;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcOperations;

/**
 * Thread-safe; one per {@link JobStore}. Whether skipped fires may be written to the run history:
 * not while an instance of a schema version below {@value #SKIPS_SINCE} is alive, since such an
 * instance reads every history record as a run and fails on a skip's outcome (its page and endpoint
 * would answer errors). Read from the instances table only when a skip is to be written, at most
 * once per lease either way; a read that fails keeps skips back.
 */
final class SkipGate {

    /** The schema version that brought skip records. */
    static final int SKIPS_SINCE = 6;

    private final JdbcOperations jdbc;
    private final ClusterInstance instance;
    private final Statement olderAlive;
    private final LongSupplier nanos;

    /** When the answer was read ({@link #nanos}), and whether it was open; read = false before the first. */
    private volatile long readAt;

    private volatile boolean read;
    private volatile boolean open;

    SkipGate(JdbcOperations jdbc, ClusterInstance instance) {
        this(jdbc, instance, System::nanoTime);
    }

    SkipGate(JdbcOperations jdbc, ClusterInstance instance, LongSupplier nanos) {
        this.jdbc = jdbc;
        this.instance = instance;
        this.olderAlive = instance.sql().olderAlive();
        this.nanos = nanos;
    }

    /** Whether no instance older than {@value #SKIPS_SINCE} is alive, as last read (within a lease). */
    boolean open() {
        long now = nanos.getAsLong();
        if (read
                && now - readAt
                        < Duration.ofMillis(-instance.deadAfterMillisParameter())
                                .toNanos()) {
            return open;
        }
        boolean none;
        try {
            Long older =
                    jdbc.queryForObject(olderAlive.sql(), Long.class, SKIPS_SINCE, instance.deadAfterMillisParameter());
            none = older != null && older == 0;
        } catch (DataAccessException ex) {
            return false; // read again with the next skip
        }
        open = none;
        readAt = now;
        read = true;
        return none;
    }
}
