package io.timedjobs.scheduler.jdbc.cluster;

import io.timedjobs.scheduler.jdbc.database.ClusterInstance;
import io.timedjobs.scheduler.jdbc.database.Statement;
import java.time.Duration;
import java.util.function.LongSupplier;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcOperations;

/**
 * Thread-safe; one per {@link JobStore}. Whether records an older instance cannot read may be written
 * to the run history: skipped fires not while an instance of a schema version below {@value
 * #SKIPS_SINCE} is alive, abandoned runs not while one below {@value #ABANDONED_SINCE} is, since such
 * an instance maps every record's outcome to the outcomes it knows and fails on a newer one (its
 * page and endpoint would answer errors, its own skips would throw). Read from the instances table
 * only when such a record is to be written, at most once per lease for each; a read that fails keeps
 * the records back.
 */
final class SkipGate {

    /** The schema version that brought skip records. */
    static final int SKIPS_SINCE = 6;

    /** The schema version whose code knows the outcome of an abandoned run. */
    static final int ABANDONED_SINCE = 7;

    private final JdbcOperations jdbc;
    private final ClusterInstance instance;
    private final Statement olderAlive;
    private final LongSupplier nanos;
    private final Answer skips = new Answer();
    private final Answer abandoned = new Answer();

    /** One version's answer: when it was read ({@link #nanos}), and whether it was open. */
    private static final class Answer {
        volatile long readAt;
        volatile boolean read;
        volatile boolean open;
    }

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
        return open(skips, SKIPS_SINCE);
    }

    /** Whether no instance older than {@value #ABANDONED_SINCE} is alive, as last read (within a lease). */
    boolean openToAbandoned() {
        return open(abandoned, ABANDONED_SINCE);
    }

    private boolean open(Answer answer, int since) {
        long now = nanos.getAsLong();
        if (answer.read
                && now - answer.readAt
                        < Duration.ofMillis(-instance.deadAfterMillisParameter())
                                .toNanos()) {
            return answer.open;
        }
        boolean none;
        try {
            Long older = jdbc.queryForObject(olderAlive.sql(), Long.class, since, instance.deadAfterMillisParameter());
            none = older != null && older == 0;
        } catch (DataAccessException ex) {
            return false; // read again with the next record
        }
        answer.open = none;
        answer.readAt = now;
        answer.read = true;
        return none;
    }
}
