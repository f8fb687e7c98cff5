package io.timedjobs.scheduler.jdbc.cluster;

import io.timedjobs.scheduler.jdbc.CatchUpPolicy;
import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.ClusterHeartbeat;
import io.timedjobs.scheduler.jdbc.database.ClusterInstance;
import io.timedjobs.scheduler.jdbc.database.DatabaseClock;
import io.timedjobs.scheduler.jdbc.database.LeaseRule;
import io.timedjobs.scheduler.jdbc.database.OutageLog;
import io.timedjobs.scheduler.jdbc.history.RunHistory;
import io.timedjobs.scheduler.spring.ScheduledJobNames;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.Ordered;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.annotation.SchedulingConfigurer;
import org.springframework.scheduling.config.CronTask;
import org.springframework.scheduling.config.ScheduledTaskRegistrar;
import org.springframework.scheduling.config.Task;
import org.springframework.scheduling.config.TriggerTask;

/**
 * Spring bean (a {@link SchedulingConfigurer}): makes the application's {@code @Scheduled} jobs
 * run once per fire across all instances on the database. Configure it before the context
 * refreshes; afterwards it is thread-safe.
 *
 * <p>Spring calls it with the registrar of {@code @Scheduled} tasks just before they are
 * scheduled. It puts a {@link ClusteredTaskScheduler} in front of the registrar's scheduler, which
 * replaces each clustered cron, fixed-rate and fixed-delay task by a {@link ClusteredJob}, and logs
 * one INFO line listing the clustered jobs and the local ones. It runs last among configurers, so
 * that it wraps whatever scheduler they chose. Once clustered jobs exist, a poll of the {@link
 * ClusterHeartbeat} prunes fire records older than twice the horizon, once per horizon (records
 * only need to outlive it; an application without clustered jobs never prunes), and a prune that
 * goes through ends a known outage: while one is known (a database call of a job failed, and no
 * poll succeeded since), fires are skipped without touching the database, and every poll prunes
 * to find the database back.
 */
public final class ClusteredJobs implements SchedulingConfigurer, BeanFactoryAware, Ordered {

    private static final Log logger = LogFactory.getLog(ClusteredJobs.class);

    private final ClusterJobStats stats = new ClusterJobStats();
    private final OutageLog outages = new OutageLog(ClusteredJobs.class, "clustered jobs");

    /** The jobs' database calls in flight on the workers: see {@link SlowCalls}. */
    private final SlowCalls calls;

    private final ClusterInstance instance;
    private final JobContext context;
    private final List<ClusteredJob> jobs = new CopyOnWriteArrayList<>();
    private final Duration firesKept;

    /** Fires recorded by other instances, heard where the database notifies; see FireNotices. */
    private final FireNotices notices;

    /** Whether to listen for fires recorded elsewhere; see {@link #setListen(boolean)}. */
    private volatile boolean listen = true;

    private ZoneId defaultZone = ZoneId.systemDefault();
    private Set<String> localJobs = Set.of();
    private Predicate<String> clusteredQualifier = String::isEmpty;
    private Map<String, CatchUpPolicy.Settings> catchUpSettings = Map.of();
    private @Nullable ConfigurableListableBeanFactory beanFactory;

    /** Whether fires were pruned yet, and when last (System.nanoTime()); the heartbeat's poll thread only. */
    private boolean pruned;

    private long lastPruneNanos;

    /**
     * @param pollInterval how often an instance looks again when it has no fire to try
     * @param maxRunTime longest run before the run lease expires
     * @param fireHorizon age beyond which a fire is refused
     */
    public ClusteredJobs(
            ClusterDatabase database,
            ClusterHeartbeat heartbeat,
            DatabaseClock clock,
            Duration pollInterval,
            Duration maxRunTime,
            Duration fireHorizon) {
        this(database, heartbeat, clock, pollInterval, maxRunTime, fireHorizon, RunHistory.disabled(database));
    }

    /**
     * As the constructor above, recording each run in {@code history} (see {@link RunHistory}),
     * which this instance's heartbeat prunes.
     */
    public ClusteredJobs(
            ClusterDatabase database,
            ClusterHeartbeat heartbeat,
            DatabaseClock clock,
            Duration pollInterval,
            Duration maxRunTime,
            Duration fireHorizon,
            RunHistory history) {
        this.instance = heartbeat.instance();
        this.calls = new SlowCalls(instance.name());
        JobStore store = new JobStore(database, instance, history);
        this.notices = FireNotices.of(database, instance.name(), pollInterval);
        this.context = new JobContext(
                store,
                clock,
                stats,
                outages,
                new JobContext.Timings(pollInterval, maxRunTime, fireHorizon),
                notices,
                calls);
        heartbeat.addStopAction(notices::stop);
        // Who tries each fire first: the heartbeat reads the live instances as it beats, where it
        // can fold the read into its own statement (PostgreSQL), trusted for a lease.
        FireOrder order = notices.order();
        instance.watchLiveInstances(names -> order.seen(names, instance.lease()));
        heartbeat.addStopAction(order::forget);
        // A graceful stop keeps beating while the fires going on end (at most LeaseRule.stopWait, so
        // that a run that hangs cannot keep the instance from stopping), and begins none: no other
        // instance takes a run lease over from a run still going, as it would from a dead instance.
        Duration stopWait = LeaseRule.stopWait(instance.lease());
        heartbeat.addStopWait(() -> {
            try {
                if (!store.departure().leave(stopWait, () -> store.heldLeases().isEmpty())) {
                    logger.warn("Instance " + instance.name() + " stops while clustered job run(s) "
                            + store.heldLeases() + " still go on after " + stopWait + "; other instances may"
                            + " take their run leases over once this instance is gone");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        // the ends of runs written off the workers were waited for above; their threads go now
        heartbeat.addStopAction(calls::stop);
        Duration keep = fireHorizon.multipliedBy(2);
        this.firesKept = keep;
        long pruneEveryNanos = fireHorizon.toNanos();
        heartbeat.addPollStartAction(store::pollBegins);
        heartbeat.addPollAction(() -> {
            long now = System.nanoTime();
            // While an outage is known, fires skip the database: this poll is what finds it back.
            boolean due = outages.inOutage() || !pruned || now - lastPruneNanos >= pruneEveryNanos;
            if (jobs.isEmpty() || !due) {
                return;
            }
            store.pruneFires(keep);
            pruned = true;
            lastPruneNanos = now;
            outages.succeeded();
            history.pruneIfDue();
        });
        heartbeat.addPollAction(store::polled);
        heartbeat.addPollAction(() -> calls.unwritten().write(history)); // ends the database missed
        heartbeat.addHoldings(() -> {
            List<String> held = store.heldSinceLastPoll();
            return held.isEmpty() ? "" : "the run lease of job(s) " + held;
        });
        // A process that died under this name left its runs: each is recorded as abandoned, and its
        // lease ends now, not at the max run time.
        instance.addStartAction(() -> history.abandoned().leftBehind(instance, store.skipGate()::openToAbandoned));
        instance.addStartAction(store::expireLeftoverLeases);
        instance.addStartAction(store.departure()::rejoin);
        // Listens once the instance has its row (so not at all when a duplicate name refuses it),
        // and again after a restart; a job added later starts it in added(). Each side writes
        // before it reads what the other writes (the row flag, the job list), so one sees both.
        instance.addStartAction(() -> {
            if (listen && !jobs.isEmpty()) {
                notices.start();
            }
        });
    }

    /**
     * Sets whether this instance listens for the fires other instances record (PostgreSQL's {@code
     * LISTEN}, on one connection held while it runs clustered jobs), so that only one instance
     * tries each fire at once (see {@link #setFirePlacement}); true by default. When false, or where the
     * database cannot notify, every instance tries every fire (one statement each). Fires recorded
     * here are announced either way.
     */
    public void setListen(boolean listen) {
        this.listen = listen;
    }

    /**
     * Sets which instance tries each fire of a clustered job first, where instances hear of the
     * fires the others record (PostgreSQL, with {@link #setListen listening} on): {@link
     * FirePlacement#SPREAD} (the default) or {@link FirePlacement#STICKY}. Who runs a fire is
     * decided by its record in the database either way.
     */
    public void setFirePlacement(FirePlacement placement) {
        notices.placement(placement);
    }

    /** Returns who tries each fire first; see {@link #setFirePlacement}. */
    public FirePlacement firePlacement() {
        return notices.placement();
    }

    /** Sets the zone of cron expressions declared without one; default the JVM's. */
    public void setDefaultZone(ZoneId defaultZone) {
        this.defaultZone = Objects.requireNonNull(defaultZone, "defaultZone");
    }

    /** Sets the names of jobs that run on every instance (as with {@link RunOnEveryInstance}). */
    public void setLocalJobs(Set<String> localJobs) {
        this.localJobs = Set.copyOf(localJobs);
    }

    /**
     * Sets which schedulers' jobs are clustered, by the qualifier a job asks for ("" for the
     * default scheduler); default: only the default scheduler's.
     */
    public void setClusteredQualifier(Predicate<String> clusteredQualifier) {
        this.clusteredQualifier = Objects.requireNonNull(clusteredQualifier, "clusteredQualifier");
    }

    /**
     * Sets the catch-up of jobs by name ({@code timed-jobs.cluster.jobs[<name>].catch-up.*}): each
     * part given wins over the job's {@link io.timedjobs.scheduler.jdbc.CatchUp}. A declaration
     * that is invalid (an unknown policy, a window that is not positive, a policy on a fixed-delay
     * job) fails the start-up, naming the job.
     */
    public void setCatchUpSettings(Map<String, CatchUpPolicy.Settings> catchUpSettings) {
        // Checked now, so that a wrong key fails the start-up even when it names no job.
        catchUpSettings.forEach(
                (name, settings) -> CatchUpPolicy.resolve(name, null, null, CatchUpPolicy.DEFAULT_MAX_FIRES, settings));
        this.catchUpSettings = Map.copyOf(catchUpSettings);
    }

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        if (!(beanFactory instanceof ConfigurableListableBeanFactory configurable)) {
            throw new IllegalStateException(
                    "ClusteredJobs needs a ConfigurableListableBeanFactory, got " + beanFactory);
        }
        this.beanFactory = configurable;
    }

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }

    @Override
    public void configureTasks(ScheduledTaskRegistrar registrar) {
        ConfigurableListableBeanFactory factory = Objects.requireNonNull(beanFactory, "beanFactory not set");
        TaskScheduler current = registrar.getScheduler();
        if (current == null) {
            logger.warn("No scheduler is set on the registrar of @Scheduled tasks yet; they run on every instance");
            return;
        }
        ClusteredTaskScheduler clustered = new ClusteredTaskScheduler(
                current,
                new JobCatalog(factory, localJobs),
                clusteredQualifier,
                context,
                defaultZone,
                factory,
                this::added);
        clustered.setCatchUpSettings(catchUpSettings);
        registrar.setTaskScheduler(clustered);
        logJobs(registrar, clustered);
    }

    private void added(ClusteredJob job) {
        jobs.add(job);
        if (listen && instance.registered()) {
            notices.start(); // idempotent: one listener for all of this instance's jobs
        }
    }

    private void logJobs(ScheduledTaskRegistrar registrar, ClusteredTaskScheduler scheduler) {
        // In the order the registrar schedules them, so that indexes match.
        List<Task> tasks = new ArrayList<>(registrar.getTriggerTaskList());
        tasks.addAll(registrar.getCronTaskList());
        tasks.addAll(registrar.getFixedRateTaskList());
        tasks.addAll(registrar.getFixedDelayTaskList());
        List<String> clusteredNames = new ArrayList<>();
        List<String> localNames = new ArrayList<>();
        for (Task task : tasks) {
            JobCatalog.Job job = scheduler.describe(task.getRunnable());
            boolean customTrigger = task instanceof TriggerTask && !(task instanceof CronTask);
            if (job.clustered() && !customTrigger) {
                boolean given = job.method() != null && ScheduledJobNames.isGiven(job.method());
                clusteredNames.add(job.name() + (given ? " (@JobName)" : ""));
            } else {
                localNames.add(job.name() + " (" + (customTrigger ? "custom trigger" : job.reason()) + ")");
            }
        }
        List<String> unknown = localJobs.stream()
                .filter(name -> clusteredNames.stream()
                                .noneMatch(clustered -> clustered.equals(name) || clustered.startsWith(name + " "))
                        && localNames.stream()
                                .noneMatch(local -> local.startsWith(name + " ") || local.startsWith(name + "#")))
                .sorted()
                .toList();
        List<String> unknownCatchUp = catchUpSettings.keySet().stream()
                .filter(name -> clusteredNames.stream()
                        .noneMatch(clustered -> clustered.equals(name) || clustered.startsWith(name + " ")))
                .sorted()
                .toList();
        if (!unknownCatchUp.isEmpty()) {
            logger.warn("timed-jobs.cluster.jobs[...].catch-up names no clustered @Scheduled job registered at"
                    + " start-up: " + unknownCatchUp + "; job names are bean name, dot, method name");
        }
        if (!unknown.isEmpty()) {
            logger.warn("timed-jobs.cluster.local-jobs names no @Scheduled job registered at start-up: " + unknown
                    + "; job names are bean name, dot, method name, for example "
                    + (clusteredNames.isEmpty() ? "reportService.sendDaily" : clusteredNames.get(0)));
        }
        logger.info("Instance " + instance.name() + ": " + clusteredNames.size()
                + " @Scheduled job(s) run once per fire across instances " + clusteredNames + "; "
                + localNames.size() + " run on every instance " + localNames + "; cron zone " + defaultZone
                + "; names not marked @JobName are derived from bean and method, so renaming either makes a new"
                + " job");
    }

    /**
     * Key of the nominal fire (an {@link Instant}) in the Reactor {@code Context} of a reactive
     * clustered run's subscription: what {@link #currentFire()} answers, for the operators of a
     * {@code Mono} or {@code Flux} job on any thread ({@code Mono.deferContextual(context ->
     * ...context.get(FIRE_CONTEXT_KEY)...)}).
     */
    public static final String FIRE_CONTEXT_KEY = "timed-jobs.clustered.fire";

    /** Key of the job's name (a {@link String}) in the same Reactor {@code Context}; see {@link #FIRE_CONTEXT_KEY}. */
    public static final String JOB_CONTEXT_KEY = "timed-jobs.clustered.job";

    /**
     * Returns the nominal instant (on the database's clock) of the fire that the clustered job
     * running on the calling thread is running, or null outside a clustered run. The same on every
     * instance for the same fire: a key for logs or for idempotent effects.
     *
     * <p>A reactive job ({@code Mono}, {@code Flux}, Kotlin {@code suspend}) is subscribed to on the
     * thread that runs the fire, which waits for the publisher's end: this method answers there
     * while the subscription is made (a {@code Mono.defer} or {@code Mono.fromCallable} before any
     * change of thread, a {@code suspend} function until it first suspends). On the threads its
     * operators move to, it answers only under Reactor's automatic context propagation (see {@link
     * ClusteredRunAccessor}); there, {@link #FIRE_CONTEXT_KEY} in the Reactor {@code Context} always
     * holds the fire.
     */
    public static @Nullable Instant currentFire() {
        return CurrentClusteredRun.fire();
    }

    /**
     * Returns the name of the clustered job running on the calling thread (its {@code @JobName},
     * or the name derived from bean and method), or null outside a clustered run.
     */
    public static @Nullable String currentJob() {
        return CurrentClusteredRun.job();
    }

    /**
     * Returns whether the clustered run on the calling thread catches up a fire missed while no
     * instance ran the job (see {@link io.timedjobs.scheduler.jdbc.CatchUp}); false outside a
     * clustered run. {@link #currentFire()} is that missed fire's nominal instant.
     */
    public static boolean currentFireIsMissed() {
        return CurrentClusteredRun.missed();
    }

    /** Returns the counters of this instance's clustered jobs. */
    public ClusterJobStats stats() {
        return stats;
    }

    /** Returns the outage log of clustered jobs, for its counts. */
    public OutageLog outages() {
        return outages;
    }

    /** Returns the names of the clustered jobs scheduled so far. */
    public List<String> jobNames() {
        return jobs.stream().map(ClusteredJob::name).toList();
    }

    /**
     * Returns the clustered jobs this instance refuses to run, each with why (its definition here
     * conflicts with the one recorded, such as another cron zone), in order of scheduling.
     */
    public Map<String, String> refusedJobs() {
        Map<String, String> refused = new LinkedHashMap<>();
        for (ClusteredJob job : jobs) {
            String reason = job.refusedReason();
            if (reason != null) {
                refused.put(job.name(), reason);
            }
        }
        return refused;
    }

    /** Returns the fires heard from other instances and the order of the live instances; for tests. */
    FireNotices notices() {
        return notices;
    }

    /** Returns how long fire records are kept: what a count of the fires table covers. */
    public Duration firesKept() {
        return firesKept;
    }
}
