package io.timedjobs.scheduler.jdbc.cluster;

import io.timedjobs.scheduler.jdbc.CatchUp;
import io.timedjobs.scheduler.jdbc.CatchUpPolicy;
import io.timedjobs.scheduler.spring.SchedulerSettings;
import java.lang.reflect.Method;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ScheduledFuture;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.Trigger;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.annotation.ScheduledAnnotationBeanPostProcessor;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;
import org.springframework.scheduling.support.CronTrigger;
import org.springframework.util.StringUtils;

/**
 * Thread-safe as its delegate is: the scheduler Spring's registrar of {@code @Scheduled} methods
 * hands its tasks to when cluster mode is on, a {@link TaskScheduler} in front of the one Spring
 * would have used.
 *
 * <p>Cron, fixed-rate and fixed-delay tasks of clustered jobs are replaced by a {@link
 * ClusteredJob}, scheduled on the delegate as a trigger task whose runs claim their fire first.
 * Everything else (one-shot tasks, custom triggers, local jobs, jobs of other schedulers) passes
 * through unchanged. A clustered job runs what its {@link JobCatalog.Job#run()} says: Spring's
 * runnable, or for a reactive method one that holds the fire until its publisher terminates.
 */
final class ClusteredTaskScheduler implements TaskScheduler {

    private final TaskScheduler delegate;
    private final JobCatalog catalog;
    private final Predicate<String> clusteredQualifier;
    private final JobContext context;
    private final ZoneId defaultZone;
    private final ConfigurableBeanFactory beanFactory;
    private final Consumer<ClusteredJob> onClusteredJob;

    /** The catch-up keys by job name ({@code timed-jobs.cluster.jobs[<name>].catch-up.*}). */
    private volatile Map<String, CatchUpPolicy.Settings> catchUpSettings = Map.of();

    /**
     * @param clusteredQualifier whether tasks asking for the scheduler of that qualifier ("" for
     *     the default one) are clustered
     * @param defaultZone zone of cron expressions declared without one
     * @param onClusteredJob told of every clustered job created
     */
    public ClusteredTaskScheduler(
            TaskScheduler delegate,
            JobCatalog catalog,
            Predicate<String> clusteredQualifier,
            JobContext context,
            ZoneId defaultZone,
            ConfigurableBeanFactory beanFactory,
            Consumer<ClusteredJob> onClusteredJob) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.catalog = Objects.requireNonNull(catalog, "catalog");
        this.clusteredQualifier = Objects.requireNonNull(clusteredQualifier, "clusteredQualifier");
        this.context = Objects.requireNonNull(context, "context");
        this.defaultZone = Objects.requireNonNull(defaultZone, "defaultZone");
        this.beanFactory = Objects.requireNonNull(beanFactory, "beanFactory");
        this.onClusteredJob = Objects.requireNonNull(onClusteredJob, "onClusteredJob");
    }

    /**
     * Returns the threads of the scheduler a task runs on (Spring's router in front of it picks the
     * bean its qualifier names, else the default one), or 0 when it cannot be told: the room for
     * the jobs' database calls, see {@link SlowCalls}.
     */
    private int workers(Runnable task) {
        int own = poolSizeOf(delegate);
        if (own > 0) {
            return own;
        }
        String qualifier = JobCatalog.qualifierOf(task);
        String name =
                qualifier.isEmpty() ? ScheduledAnnotationBeanPostProcessor.DEFAULT_TASK_SCHEDULER_BEAN_NAME : qualifier;
        try {
            return beanFactory.containsBean(name) ? poolSizeOf(beanFactory.getBean(name)) : 0;
        } catch (BeansException notThere) {
            return 0;
        }
    }

    /**
     * Returns the workers of a scheduler of ours or of Spring's pool, else 0 (no limit known). Ours
     * on virtual threads has as many as its concurrency limit (0: no limit). Spring's pool tells its
     * live threads in getPoolSize() once initialized (none or one as jobs are scheduled), so its
     * executor's core size is read; before initialization getPoolSize() is the configured size.
     */
    static int poolSizeOf(Object scheduler) {
        if (scheduler instanceof SchedulerSettings settings) {
            return settings.isVirtualThreads() ? settings.getConcurrencyLimit() : settings.getPoolSize();
        }
        if (scheduler instanceof ThreadPoolTaskScheduler pool) {
            try {
                return pool.getScheduledThreadPoolExecutor().getCorePoolSize();
            } catch (IllegalStateException notInitialized) {
                return pool.getPoolSize();
            }
        }
        return 0;
    }

    /** Sets the catch-up keys by job name; they win over {@code @CatchUp} part by part. */
    void setCatchUpSettings(Map<String, CatchUpPolicy.Settings> settings) {
        this.catchUpSettings = Map.copyOf(settings);
    }

    /** Returns the job of a task, as the catalog names it for this scheduler. */
    public JobCatalog.Job describe(Runnable task) {
        return catalog.describe(task, clusteredQualifier.test(JobCatalog.qualifierOf(task)));
    }

    @Override
    public Clock getClock() {
        return delegate.getClock();
    }

    @Override
    public @Nullable ScheduledFuture<?> schedule(Runnable task, Trigger trigger) {
        JobCatalog.Job job = describe(task);
        if (job.clustered() && trigger instanceof CronTrigger cron) {
            CronJob clustered = new CronJob(job.name(), job.run(), context, cron.getExpression(), zoneOf(job, cron));
            clustered.workers(workers(task));
            clustered.catchUp(catchUpOf(job));
            onClusteredJob.accept(clustered);
            return delegate.schedule(clustered, clustered);
        }
        return delegate.schedule(task, trigger);
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable task, Instant startTime) {
        return delegate.schedule(task, startTime);
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable task, Instant startTime, Duration period) {
        JobCatalog.Job job = describe(task);
        if (job.clustered()) {
            return fixedRate(job, job.run(), period, initialDelay(startTime));
        }
        return delegate.scheduleAtFixedRate(task, startTime, period);
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable task, Duration period) {
        JobCatalog.Job job = describe(task);
        if (job.clustered()) {
            return fixedRate(job, job.run(), period, Duration.ZERO);
        }
        return delegate.scheduleAtFixedRate(task, period);
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable task, Instant startTime, Duration delay) {
        JobCatalog.Job job = describe(task);
        if (job.clustered()) {
            return fixedDelay(job, job.run(), delay, initialDelay(startTime));
        }
        return delegate.scheduleWithFixedDelay(task, startTime, delay);
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable task, Duration delay) {
        JobCatalog.Job job = describe(task);
        if (job.clustered()) {
            return fixedDelay(job, job.run(), delay, Duration.ZERO);
        }
        return delegate.scheduleWithFixedDelay(task, delay);
    }

    private ScheduledFuture<?> fixedRate(JobCatalog.Job job, Runnable task, Duration period, Duration initialDelay) {
        FixedRateJob clustered = new FixedRateJob(job.name(), task, context, period, initialDelay);
        clustered.workers(workers(task));
        clustered.catchUp(catchUpOf(job));
        onClusteredJob.accept(clustered);
        return Objects.requireNonNull(delegate.schedule(clustered, clustered), "future");
    }

    private ScheduledFuture<?> fixedDelay(JobCatalog.Job job, Runnable task, Duration delay, Duration initialDelay) {
        FixedDelayJob clustered = new FixedDelayJob(job.name(), task, context, delay, initialDelay);
        clustered.workers(workers(task));
        clustered.catchUp(catchUpOf(job));
        onClusteredJob.accept(clustered);
        return Objects.requireNonNull(delegate.schedule(clustered, clustered), "future");
    }

    /**
     * Returns the catch-up policy of a job: its method's {@link CatchUp} and its keys by name, the
     * keys winning part by part (an operator changes a deployed job without a build).
     */
    private CatchUpPolicy catchUpOf(JobCatalog.Job job) {
        Method method = job.method();
        CatchUp declared = method == null ? null : AnnotatedElementUtils.findMergedAnnotation(method, CatchUp.class);
        CatchUpPolicy.Settings keys = catchUpSettings.get(job.name());
        if (declared == null && keys == null) {
            return CatchUpPolicy.SKIP;
        }
        return CatchUpPolicy.resolve(
                job.name(),
                declared == null ? null : declared.value(),
                declared == null ? null : resolve(declared.window()),
                declared == null ? CatchUpPolicy.DEFAULT_MAX_FIRES : declared.maxFires(),
                keys);
    }

    private Duration initialDelay(Instant startTime) {
        Duration delay = Duration.between(delegate.getClock().instant(), startTime);
        return delay.isNegative() ? Duration.ZERO : delay;
    }

    /**
     * Returns the zone the method's {@code @Scheduled} gives for this expression, else the shared
     * default. The cron trigger Spring built has the JVM's zone filled in, so the annotation is
     * read again to tell "no zone" from "the JVM's zone".
     */
    private ZoneId zoneOf(JobCatalog.Job job, CronTrigger trigger) {
        Method method = job.method();
        if (method != null) {
            for (Scheduled scheduled : AnnotatedElementUtils.getMergedRepeatableAnnotations(method, Scheduled.class)) {
                String cron = resolve(scheduled.cron());
                if (cron.equals(trigger.getExpression()) && StringUtils.hasText(scheduled.zone())) {
                    return ZoneId.of(resolve(scheduled.zone()));
                }
            }
        }
        return defaultZone;
    }

    private String resolve(String value) {
        String resolved = beanFactory.resolveEmbeddedValue(value);
        return resolved == null ? value : resolved;
    }

    @Override
    public String toString() {
        return "ClusteredTaskScheduler[" + delegate + "]";
    }
}
