package io.timedjobs.scheduler.jdbc.database;

import io.timedjobs.scheduler.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.context.SmartLifecycle;

/**
 * Not API: used by the auto-configuration and durable tasks. Spring lifecycle bean, thread-safe:
 * keeps this instance registered while the application runs. On its own daemon thread it wakes
 * every poll interval and runs the poll actions others added; it sends the {@link
 * ClusterInstance}'s heartbeat only every {@linkplain ClusterInstance#beatInterval() beat interval}
 * ({@link LeaseRule#beatInterval}, as the auto-configuration sets it), measures the {@link DatabaseClock} with
 * each beat where the database returns its time from the heartbeat's update (PostgreSQL), else in
 * a statement of its own every {@value #CLOCK_EVERY_BEATS} beats (the clock's error widens by the
 * assumed drift in between), reads the live instances with each beat for their watcher where the
 * update can carry the read (PostgreSQL; see {@link ClusterInstance#watchLiveInstances}), and prunes the rows of dead instances every {@link
 * LeaseRule#pruneEvery} (five leases). So an instance with nothing else to do sends its database about 4.4
 * statements a minute at the default 30 s lease on PostgreSQL (6.4 elsewhere), whatever the poll
 * interval.
 * After a failed call it tries again at every poll, until one goes through. While its {@linkplain
 * #reach() reach} is read (health), it checks the database between beats at every poll too (one
 * {@code SELECT 1}), so that the reach's readers know it within a poll interval.
 *
 * <p>It notices when this instance fell silent for longer than {@link LeaseRule#takeOverAfter} (its
 * lease): the process was paused
 * (SIGSTOP, a long garbage collection, a frozen virtual machine) or its database calls failed that
 * long. The others may then have taken over what it held. The first poll after such a silence
 * (before any database call, so at once on waking) logs one WARN naming what it held, as the
 * {@linkplain #addHoldings holdings} describe it; its late effects are refused by the database's
 * fences, each logged where it happens.
 *
 * <p>It starts in a phase before the schedulers' (so that the instance is registered and the
 * clock measured before the first fire) and stops after them. A database that is down at start-up
 * does not stop the application: failures go to the {@link OutageLog} and each poll tries again.
 */
public final class ClusterHeartbeat implements SmartLifecycle {

    private static final Log logger = LogFactory.getLog(ClusterHeartbeat.class);

    /** Phase: before the schedulers' ({@code Integer.MAX_VALUE / 2}) on start, after them on stop. */
    public static final int PHASE = Integer.MAX_VALUE / 2 - 1024;

    /** The clock is measured with every this many beats: twice a lease at the default pace. */
    static final int CLOCK_EVERY_BEATS = 2;

    private final ClusterInstance instance;
    private final DatabaseClock clock;
    private final OutageLog outages;
    private final Duration pollInterval;
    private final List<Runnable> pollActions = new CopyOnWriteArrayList<>();

    /** Run at the very start of each poll, before its silence check; see {@link #addPollStartAction}. */
    private final List<Runnable> pollStartActions = new CopyOnWriteArrayList<>();

    /** Run by stop(), before the row is removed. */
    private final List<Runnable> stopActions = new CopyOnWriteArrayList<>();

    /** Run by stop() first, while the heartbeat still beats. */
    private final List<Runnable> stopWaits = new CopyOnWriteArrayList<>();

    private final List<Supplier<String>> holdings = new CopyOnWriteArrayList<>();

    /** What the next beat carries, asked at each beat; see {@link #setBeatRide}. */
    private volatile Supplier<@Nullable BeatRide> beatRide = () -> null;

    private final Ticker ticker;

    /** What this thread last learnt of the database, for readers that must not call it themselves. */
    private final DatabaseReach reach;

    /** Ticker reading at which the last successful heartbeat was sent; poll thread only. */
    private long lastBeatNanos;

    /** Beats since the clock was last measured; poll thread only. */
    private int beatsSinceClock;

    /** Ticker reading at which dead rows were last pruned; poll thread only. */
    private long lastPruneNanos;

    /** Whether the last heartbeat, measurement or prune failed; poll thread only. */
    private boolean lastFailed;

    /** Whether a beat succeeded yet; poll thread only. */
    private boolean beaten;

    /** Whether the current silence was reported already; poll thread only. */
    private boolean silenceReported;

    /** The poll thread while running; guarded by this. */
    private @Nullable ScheduledExecutorService executor;

    /** Whether the row is written; only the poll thread and stop() (after the poll thread) touch it. */
    private volatile boolean registered;

    public ClusterHeartbeat(ClusterInstance instance, DatabaseClock clock, OutageLog outages, Duration pollInterval) {
        this(instance, clock, outages, pollInterval, Ticker.system());
    }

    /**
     * @param ticker times the beat interval, the clock's and the prune's pace and silences (tests
     *     pass a manual one and call {@link #poll()} themselves)
     */
    public ClusterHeartbeat(
            ClusterInstance instance, DatabaseClock clock, OutageLog outages, Duration pollInterval, Ticker ticker) {
        this.instance = Objects.requireNonNull(instance, "instance");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.outages = Objects.requireNonNull(outages, "outages");
        this.pollInterval = Objects.requireNonNull(pollInterval, "pollInterval");
        this.ticker = Objects.requireNonNull(ticker, "ticker");
        this.reach = new DatabaseReach(ticker);
    }

    /**
     * Adds an action run on the poll thread after each heartbeat, in the order added. An action that
     * throws is reported to the outage log; the next ones still run.
     */
    public void addPollAction(Runnable action) {
        pollActions.add(Objects.requireNonNull(action, "action"));
    }

    /**
     * Adds an action run on the poll thread as each poll begins, before it checks for a silence:
     * where a holder marks what it held as the poll began. A process frozen anywhere in a poll (its
     * beat included) resumes inside it, so what ends then comes after the mark and is still named by
     * the next poll's silence check. Must not throw or call the database.
     */
    public void addPollStartAction(Runnable action) {
        pollStartActions.add(Objects.requireNonNull(action, "action"));
    }

    /**
     * Adds a wait run by {@link #stop()} first, while the instance still beats: it returns once
     * what this instance holds that others would take over from a dead instance has ended (runs of
     * clustered jobs), or gives up by itself. Waits are run in the order added.
     */
    public void addStopWait(Runnable wait) {
        stopWaits.add(Objects.requireNonNull(wait, "wait"));
    }

    /** Adds an action run by {@link #stop()} before the instance's row is removed, in the order added. */
    public void addStopAction(Runnable action) {
        stopActions.add(Objects.requireNonNull(action, "action"));
    }

    /**
     * Adds a description of what this instance holds that others take over once it is silent for
     * longer than the lease (for example "the run lease of job(s) [a]"), or "" for nothing: named in
     * the warning of such a silence. Called on the poll thread; must not touch the database.
     */
    public void addHoldings(Supplier<String> description) {
        holdings.add(Objects.requireNonNull(description, "description"));
    }

    /**
     * Sets what each beat is asked to carry (null for nothing at that beat), read on the poll thread
     * just before the beat: see {@link BeatRide}. Its reader runs within the beat, on that thread,
     * before the poll actions.
     */
    public void setBeatRide(Supplier<@Nullable BeatRide> ride) {
        this.beatRide = Objects.requireNonNull(ride, "ride");
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

    /** One poll: measure, beat and prune if due, then the poll actions. Never throws. */
    public void poll() {
        poll(false);
    }

    /**
     * One poll; at start-up, a duplicate name is thrown. Later (the database was down at start-up)
     * it is reported like any failed registration, and this instance stays unregistered, claiming
     * nothing, until the name is free.
     */
    private void poll(boolean startUp) {
        pollStartActions.forEach(Runnable::run);
        long sent = ticker.read();
        checkSilence(sent);
        boolean beatDue = !registered
                || !beaten
                || lastFailed
                || sent - lastBeatNanos >= instance.beatInterval().toNanos();
        // Between beats, a watched reach is checked at every poll: its readers then never see an
        // answer older than a poll interval while the database is there.
        boolean checkDue = !beatDue && reach.watched();
        try {
            if (beatDue || checkDue) {
                reach.calling();
                if (beatDue) {
                    beat(sent);
                } else {
                    instance.check();
                    outages.succeeded();
                }
                reach.answered();
            }
            lastFailed = false;
        } catch (DuplicateInstanceNameException ex) {
            reach.failed();
            lastFailed = true;
            if (startUp) {
                throw ex;
            }
            outages.failed("registration of " + instance.name(), ex);
            return;
        } catch (RuntimeException ex) {
            reach.failed();
            lastFailed = true;
            outages.failed((beatDue ? "heartbeat of " : "check of the database by ") + instance.name(), ex);
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

    /**
     * Beats (or registers), measuring the clock with the beat where the dialect folds it in, else
     * on its own every {@value #CLOCK_EVERY_BEATS} beats; prunes dead rows if due.
     */
    private void beat(long sent) {
        boolean clockDue =
                !beaten || lastFailed || beatsSinceClock + 1 >= CLOCK_EVERY_BEATS || clock.lastMeasurement() == null;
        boolean measured = false;
        long beatAt = sent;
        if (registered) {
            measured = instance.beatMeasuring(clock, beatRide.get());
        } else {
            instance.register();
            registered = true;
            // The registration may have watched a row left under this name for a lease: this
            // process's row dates from the end of that watch, and its silence counts from there.
            beatAt = ticker.read();
            if (instance.readsLiveInstances()) {
                // at once rather than a beat interval later: until this instance knows the live
                // instances it tries every fire first; the clock is measured with it
                measured = instance.beatMeasuring(clock, null);
            }
        }
        if (measured) {
            beatsSinceClock = 0;
        } else if (clockDue) {
            clock.measure();
            beatsSinceClock = 0;
        } else {
            beatsSinceClock++;
        }
        if (!beaten
                || sent - lastPruneNanos
                        >= LeaseRule.pruneEvery(instance.lease()).toNanos()) {
            instance.pruneDead();
            lastPruneNanos = beatAt;
        }
        lastBeatNanos = beatAt;
        beaten = true;
        silenceReported = false;
        outages.succeeded();
    }

    /**
     * Warns once per silence when the last heartbeat that went through is older than {@link
     * LeaseRule#takeOverAfter} (the lease): the others may have taken over what this instance held.
     */
    private void checkSilence(long now) {
        if (!beaten || silenceReported) {
            return;
        }
        Duration silent = Duration.ofNanos(now - lastBeatNanos);
        if (silent.compareTo(LeaseRule.takeOverAfter(instance.lease())) <= 0) {
            return;
        }
        silenceReported = true;
        List<String> held = new ArrayList<>();
        for (Supplier<String> description : holdings) {
            try {
                String text = description.get();
                if (!text.isEmpty()) {
                    held.add(text);
                }
            } catch (RuntimeException ex) {
                held.add("(unknown: " + ex + ")");
            }
        }
        String why = lastFailed
                ? "its database calls failed all along (an outage, logged at ERROR as it began)"
                : "the process was paused (a long garbage collection, SIGSTOP, a frozen virtual machine or a"
                        + " starved CPU: its heartbeat thread did not run)";
        String what = lastFailed
                ? "Nothing to do here once the database is back"
                : "If this recurs, find what pauses the process (GC logs, the host's CPU and memory)";
        logger.warn("Instance " + instance.name() + " had no heartbeat through for " + silent.toMillis() + " ms,"
                + " longer than its lease (" + instance.lease() + "): " + why + ". Other instances may have taken"
                + " over what it held: " + (held.isEmpty() ? "nothing was held" : String.join("; ", held))
                + ". Late completions of what was taken over are refused by the database and logged. " + what
                + "; to ride out silences this long, raise timed-jobs.cluster.lease above them.");
    }

    /** Stops polling and removes the instance's row (best effort: the database may be down). */
    @Override
    public synchronized void stop() {
        ScheduledExecutorService running = executor;
        if (running == null) {
            return;
        }
        for (Runnable wait : stopWaits) {
            try {
                wait.run(); // still beating: what ends here is not taken over as a dead instance's
            } catch (RuntimeException ex) {
                outages.failed("stop of " + instance.name(), ex);
            }
        }
        executor = null;
        running.shutdownNow();
        try {
            running.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        for (Runnable action : stopActions) {
            try {
                action.run();
            } catch (RuntimeException ex) {
                outages.failed("stop of " + instance.name(), ex);
            }
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

    /**
     * Whether this instance's row is written and its start actions (which hand back what a dead
     * process left under its name) have run: until then nothing may be claimed under its name, or the
     * hand-back would release the claim of a task that already runs here.
     */
    public boolean registered() {
        return registered;
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

    /**
     * Returns what the heartbeat last learnt of the database: for readers that must never wait on
     * it (health). Reading it makes the heartbeat check the database at every poll for a while.
     */
    public DatabaseReach reach() {
        return reach;
    }

    /** Returns the outage log of the heartbeat: in an outage while the database cannot be reached. */
    public OutageLog outages() {
        return outages;
    }
}
