package io.timedjobs.scheduler.jdbc.cluster;

import io.timedjobs.scheduler.Ticker;
import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.InstanceSql;
import io.timedjobs.scheduler.jdbc.database.TaskNotifications;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe; used by the clustered jobs of one instance ({@link ClusteredJobs} starts and stops
 * it, each {@link ClusteredJob} asks it). The fires other instances recorded, heard as they commit
 * (PostgreSQL's {@code LISTEN}/{@code NOTIFY}): the statement that records a fire announces it,
 * at no statement of its own.
 *
 * <p>What it is for: one instance tries a fire as soon as it is due, chosen by the {@link
 * FirePlacement} (by default anew for each fire, evenly among the live instances: see {@link
 * FireOrder}); each other one waits its {@linkplain #backupSteps number} of {@linkplain
 * #BACKUP_DELAY backup steps} and tries only if it has not heard the fire recorded meanwhile (so does the
 * first, should its worker come late). So in the usual case only the first sends a statement for the fire, however many instances run the
 * job; should it be gone or late, the next one tries and records it, a moment late. Hearing is only
 * ever a reason to skip a fire that is already recorded, which the attempt would have lost anyway: a
 * lost or late notification costs a statement, never a fire. Without notifications (another
 * database, no driver, a lost connection, or turned off), every instance tries every fire at once,
 * as before.
 */
final class FireNotices {

    /**
     * How long an instance waits, per instance before it in a fire's order, before trying the fire:
     * time for the notification of the one before to arrive.
     */
    static final Duration BACKUP_DELAY = Duration.ofMillis(100);

    /** The latest fire heard recorded, per job: its instant in epoch microseconds, and its definition. */
    private record Heard(long fireMicros, String definitionKey) {}

    private final TaskNotifications listener;
    private final @Nullable String channel;
    private final Map<String, Heard> heard = new ConcurrentHashMap<>();

    /** The order of the live instances for each fire, as the heartbeat last read them. */
    private final FireOrder order;

    /** Who tries a fire first; set before the jobs are scheduled. */
    private volatile FirePlacement placement = FirePlacement.SPREAD;

    private FireNotices() {
        this.listener = TaskNotifications.none();
        this.channel = null;
        this.order = FireOrder.unknown();
    }

    /** Notices that listen on {@code channel}, on a database that can notify. */
    private FireNotices(ClusterDatabase database, String channel, String instance, Duration retry) {
        this.channel = channel;
        this.order = new FireOrder(instance, Ticker.system());
        // Not started here: heard() is called only once start() runs, on a fully built instance.
        this.listener = TaskNotifications.of(
                database, channel, instance, "fires recorded by other instances", retry, this::heard, () -> {});
    }

    /** Notices that hear nothing and announce nothing: every instance tries every fire at once. */
    static FireNotices none() {
        return new FireNotices();
    }

    /**
     * Notices on {@code database} where it can notify (PostgreSQL with its driver), else {@link
     * #none()}.
     *
     * @param instance this instance's name, for the listening thread's and the log's
     * @param retry how long to wait before listening again after a lost connection
     */
    static FireNotices of(ClusterDatabase database, String instance, Duration retry) {
        // The fire is announced by the statement that records it and takes the lease.
        JobSql statements = JobSql.of(
                database.dialect(), database.tables(), new InstanceSql(database.dialect(), database.tables()));
        if (statements.recordFireAndLease(true) == null || !TaskNotifications.available(database)) {
            return none();
        }
        return new FireNotices(database, TaskNotifications.firesChannel(database.tables()), instance, retry);
    }

    /** Starts listening in the background; idempotent. */
    void start() {
        listener.start();
    }

    /** Stops listening; idempotent. */
    void stop() {
        listener.stop();
    }

    /** Whether a fire recorded elsewhere now would be heard here. */
    boolean listening() {
        return listener.listening();
    }

    /** Sets who tries a fire first; see {@link FirePlacement}. */
    void placement(FirePlacement placement) {
        this.placement = java.util.Objects.requireNonNull(placement, "placement");
    }

    /** Returns who tries a fire first. */
    FirePlacement placement() {
        return placement;
    }

    /** Returns the order of the live instances, which the heartbeat's reads keep up to date. */
    FireOrder order() {
        return order;
    }

    /**
     * Returns how many {@linkplain #BACKUP_DELAY backup steps} this instance waits before trying
     * {@code fire} of {@code job}: 0 to try it at once, always so while nothing is heard (then every
     * instance tries every fire at once).
     *
     * @param recordedLast whether this instance recorded the job's last fire it tried (what {@link
     *     FirePlacement#STICKY} goes by)
     */
    int backupSteps(String job, Instant fire, boolean recordedLast) {
        if (!listening()) {
            return 0;
        }
        return switch (placement) {
            case STICKY -> recordedLast ? 0 : 1;
            case SPREAD -> order.rank(job, fire);
        };
    }

    /** The channel the statement that records a fire announces it on; null where fires are not announced. */
    @Nullable
    String channel() {
        return channel;
    }

    /** The announcement of {@code fire} of {@code job} recorded under {@code definitionKey}. */
    static String payload(String job, String definitionKey, Instant fire) {
        return micros(fire) + " " + definitionKey + " " + job;
    }

    /** Whether {@code fire} of {@code job} was heard recorded under {@code definitionKey}. */
    boolean recorded(String job, Instant fire, String definitionKey) {
        Heard last = heard.get(job);
        return last != null
                && last.fireMicros() == micros(fire)
                && last.definitionKey().equals(definitionKey);
    }

    /** Keeps the latest fire heard for each job; payloads that do not parse are ignored. */
    void heard(List<String> payloads) {
        for (String payload : payloads) {
            int first = payload.indexOf(' ');
            int second = first < 0 ? -1 : payload.indexOf(' ', first + 1);
            if (second < 0) {
                continue;
            }
            long fireMicros;
            try {
                fireMicros = Long.parseLong(payload.substring(0, first));
            } catch (NumberFormatException e) {
                continue;
            }
            Heard fire = new Heard(fireMicros, payload.substring(first + 1, second));
            heard.merge(
                    payload.substring(second + 1),
                    fire,
                    (old, now) -> now.fireMicros() >= old.fireMicros() ? now : old);
        }
    }

    private static long micros(Instant instant) {
        return ChronoUnit.MICROS.between(Instant.EPOCH, instant);
    }
}
