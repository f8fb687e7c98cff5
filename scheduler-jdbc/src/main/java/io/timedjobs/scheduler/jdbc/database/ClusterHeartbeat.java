package io.timedjobs.scheduler.jdbc.database;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.springframework.context.SmartLifecycle;

/**
 * Not API: used by the auto-configuration and durable tasks. Spring lifecycle bean, thread-safe:
 * keeps this instance registered while the application runs. On its own daemon thread, every poll
 * interval, it measures the {@link DatabaseClock}, renews the {@link ClusterInstance}'s heartbeat,
 * then runs the poll actions others added.
 *
 * <p>It starts in a phase before the schedulers' (so that the instance is registered and the
 * clock measured before the first fire) and stops after them. A database that is down at start-up
 * does not stop the application: failures go to the {@link OutageLog} and each poll tries again.
 */
public final class ClusterHeartbeat implements SmartLifecycle {

    /** Phase: before the schedulers' ({@code Integer.MAX_VALUE / 2}) on start, after them on stop. */
    public static final int PHASE = Integer.MAX_VALUE / 2 - 1024;

    private final ClusterInstance instance;
    private final DatabaseClock clock;
    private final OutageLog outages;
    private final Duration pollInterval;
    private final List<Runnable> pollActions = new CopyOnWriteArrayList<>();

    /** The poll thread while running; guarded by this. */
    private @Nullable ScheduledExecutorService executor;

    /** Whether the row is written; only the poll thread and stop() (after the poll thread) touch it. */
    private volatile boolean registered;

    public ClusterHeartbeat(ClusterInstance instance, DatabaseClock clock, OutageLog outages, Duration pollInterval) {
        this.instance = Objects.requireNonNull(instance, "instance");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.outages = Objects.requireNonNull(outages, "outages");
        this.pollInterval = Objects.requireNonNull(pollInterval, "pollInterval");
    }

    /**
     * Adds an action run on the poll thread after each heartbeat, in the order added. An action that
     * throws is reported to the outage log; the next ones still run.
     */
    public void addPollAction(Runnable action) {
        pollActions.add(Objects.requireNonNull(action, "action"));
    }

    /**
     * Registers the instance and measures the clock on the calling thread (so that both are done
     * when start-up ends, if the database is up), then polls in the background.
     *
     * @throws DuplicateInstanceNameException when another live process uses this instance's name:
     *     start-up fails rather than run two processes under one name
     */
    @Override
    public synchronized void start() {
        if (executor != null) {
            return;
        }
        poll(true);
        ScheduledExecutorService started = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "timed-jobs-cluster-" + instance.name());
            thread.setDaemon(true);
            return thread;
        });
        long periodNanos = pollInterval.toNanos();
        started.scheduleWithFixedDelay(this::poll, periodNanos, periodNanos, TimeUnit.NANOSECONDS);
        executor = started;
    }

    /** One poll: measure, beat, then the poll actions. Never throws. */
    void poll() {
        poll(false);
    }

    /**
     * One poll; at start-up, a duplicate name is thrown. Later (the database was down at start-up)
     * it is reported like any failed registration, and this instance stays unregistered, claiming
     * nothing, until the name is free.
     */
    private void poll(boolean startUp) {
        try {
            clock.measure();
            if (registered) {
                instance.heartbeat();
            } else {
                instance.register();
                registered = true;
            }
            outages.succeeded();
        } catch (DuplicateInstanceNameException ex) {
            if (startUp) {
                throw ex;
            }
            outages.failed("registration of " + instance.name(), ex);
            return;
        } catch (RuntimeException ex) {
            outages.failed("heartbeat of " + instance.name(), ex);
            return;
        }
        for (Runnable action : pollActions) {
            try {
                action.run();
            } catch (RuntimeException ex) {
                outages.failed("poll", ex);
            }
        }
    }

    /** Stops polling and removes the instance's row (best effort: the database may be down). */
    @Override
    public synchronized void stop() {
        ScheduledExecutorService running = executor;
        if (running == null) {
            return;
        }
        executor = null;
        running.shutdownNow();
        try {
            running.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        if (registered) {
            try {
                instance.deregister();
            } catch (RuntimeException ex) {
                outages.failed("deregistration of " + instance.name(), ex);
            }
            registered = false;
        }
    }

    @Override
    public synchronized boolean isRunning() {
        return executor != null;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }

    /** Returns the instance this heartbeat keeps alive. */
    public ClusterInstance instance() {
        return instance;
    }
}
