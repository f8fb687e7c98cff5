package io.timedjobs.scheduler.autoconfigure;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;
import io.timedjobs.scheduler.ExecutionListener;
import io.timedjobs.scheduler.LeaderFollowerScheduler;
import io.timedjobs.scheduler.spring.JobRegistry;
import io.timedjobs.scheduler.spring.TrackedJob;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The meters of one scheduler.
 *
 * <p>Tagged {@code scheduler=<bean name>}:
 *
 * <ul>
 *   <li>{@code scheduler.queue.depth}: tasks waiting in the queue;
 *   <li>{@code scheduler.lateness}: how far the most overdue waiting task is past its due time now;
 *   <li>{@code scheduler.task.lateness}: one sample per execution, start time minus due time;
 *       tagged {@code job=<bean>.<method>} for runs of {@code @Scheduled} methods;
 *   <li>{@code scheduler.tasks.active}, {@code scheduler.pool.size};
 *   <li>{@code scheduler.tasks.completed}, {@code scheduler.tasks.failed}, {@code
 *       scheduler.tasks.rejected}: counters.
 * </ul>
 *
 * <p>Tagged {@code name=<bean name>}, under the names Micrometer's executor metrics give Spring's
 * own scheduler, so that dashboards built for it keep working: {@code executor.active}, {@code
 * executor.queued}, {@code executor.completed}, {@code executor.pool.size}, {@code
 * executor.pool.core}, {@code executor.pool.max}, {@code executor.queue.remaining}. Spring Boot's executor metrics only cover
 * Spring's own executor classes, so these are never registered twice.
 */
final class SchedulerMetrics {

    static final String SCHEDULER_TAG = "scheduler";
    static final String EXECUTOR_NAME_TAG = "name";
    static final String JOB_TAG = "job";

    /**
     * The {@code job} tag of executions that belong to no {@code @Scheduled} method. Prometheus
     * wants every series of one meter to carry the same tag keys, and reads an empty value as no
     * label at all.
     */
    static final String NO_JOB = "";

    private SchedulerMetrics() {}

    /**
     * Returns a listener that records each execution's lateness: runs of a {@code @Scheduled}
     * method in a timer tagged {@code job=<bean>.<method>} (one per method, created at its first
     * run), every other execution in the timer without a {@code job} tag.
     */
    static ExecutionListener latenessTimer(MeterRegistry registry, String schedulerName, boolean histogram) {
        return new LatenessTimers(registry, schedulerName, histogram);
    }

    /** Thread-safe: the lateness timers of one scheduler. */
    private static final class LatenessTimers implements ExecutionListener {
        private final MeterRegistry registry;
        private final String schedulerName;
        private final boolean histogram;
        private final Timer untagged;
        private final Map<String, Timer> byJob = new ConcurrentHashMap<>();
        private final Function<String, Timer> newJobTimer = this::jobTimer;

        LatenessTimers(MeterRegistry registry, String schedulerName, boolean histogram) {
            this.registry = registry;
            this.schedulerName = schedulerName;
            this.histogram = histogram;
            this.untagged = timer(Tags.of(SCHEDULER_TAG, schedulerName, JOB_TAG, NO_JOB));
        }

        private Timer jobTimer(String job) {
            return timer(Tags.of(SCHEDULER_TAG, schedulerName, JOB_TAG, job));
        }

        private Timer timer(Tags tags) {
            return Timer.builder("scheduler.task.lateness")
                    .description("Start time minus due time of each task execution")
                    .tags(tags)
                    .publishPercentileHistogram(histogram)
                    .register(registry);
        }

        @Override
        public void onExecution(long latenessNanos, long durationNanos, Outcome outcome) {
            untagged.record(latenessNanos, TimeUnit.NANOSECONDS);
        }

        @Override
        public void onExecution(Object work, long latenessNanos, long durationNanos, Outcome outcome) {
            TrackedJob job = JobRegistry.jobOf(work);
            Timer timer =
                    job != null && job.isScheduledMethod() ? byJob.computeIfAbsent(job.name(), newJobTimer) : untagged;
            timer.record(latenessNanos, TimeUnit.NANOSECONDS);
        }
    }

    /** Registers the gauges and counters that read the engine's live figures. */
    static void bindFigures(MeterRegistry registry, String schedulerName, LeaderFollowerScheduler engine) {
        Tags tags = Tags.of(SCHEDULER_TAG, schedulerName);
        Gauge.builder("scheduler.queue.depth", engine, LeaderFollowerScheduler::getQueueSize)
                .description("Tasks waiting in the queue, running ones not counted")
                .baseUnit("tasks")
                .tags(tags)
                .register(registry);
        TimeGauge.builder(
                        "scheduler.lateness",
                        engine,
                        TimeUnit.NANOSECONDS,
                        scheduler -> scheduler.getOverdue(TimeUnit.NANOSECONDS))
                .description("How far the most overdue waiting task is past its due time now; 0 when on time")
                .tags(tags)
                .register(registry);
        Gauge.builder("scheduler.tasks.active", engine, LeaderFollowerScheduler::getActiveCount)
                .description("Tasks running now")
                .baseUnit("tasks")
                .tags(tags)
                .register(registry);
        Gauge.builder("scheduler.pool.size", engine, LeaderFollowerScheduler::getPoolSize)
                .description("Live worker threads")
                .baseUnit("threads")
                .tags(tags)
                .register(registry);
        FunctionCounter.builder("scheduler.tasks.completed", engine, LeaderFollowerScheduler::getCompletedTaskCount)
                .description("Executions finished, failed ones included")
                .baseUnit("tasks")
                .tags(tags)
                .register(registry);
        FunctionCounter.builder("scheduler.tasks.failed", engine, LeaderFollowerScheduler::getFailedTaskCount)
                .description("Executions that threw")
                .baseUnit("tasks")
                .tags(tags)
                .register(registry);
        FunctionCounter.builder("scheduler.tasks.rejected", engine, LeaderFollowerScheduler::getRejectedTaskCount)
                .description("Submissions refused because the scheduler was shut down")
                .baseUnit("tasks")
                .tags(tags)
                .register(registry);

        Tags executorTags = Tags.of(EXECUTOR_NAME_TAG, schedulerName);
        FunctionCounter.builder("executor.completed", engine, LeaderFollowerScheduler::getCompletedTaskCount)
                .description("Approximate number of task executions finished")
                .baseUnit("tasks")
                .tags(executorTags)
                .register(registry);
        Gauge.builder("executor.active", engine, LeaderFollowerScheduler::getActiveCount)
                .description("Approximate number of threads running a task")
                .baseUnit("threads")
                .tags(executorTags)
                .register(registry);
        Gauge.builder("executor.queued", engine, LeaderFollowerScheduler::getQueueSize)
                .description("Approximate number of tasks waiting in the queue")
                .baseUnit("tasks")
                .tags(executorTags)
                .register(registry);
        Gauge.builder("executor.pool.size", engine, LeaderFollowerScheduler::getPoolSize)
                .description("Threads in the pool now")
                .baseUnit("threads")
                .tags(executorTags)
                .register(registry);
        Gauge.builder("executor.pool.core", engine, LeaderFollowerScheduler::getCorePoolSize)
                .description("Configured number of threads in the pool")
                .baseUnit("threads")
                .tags(executorTags)
                .register(registry);
        Gauge.builder("executor.pool.max", engine, LeaderFollowerScheduler::getCorePoolSize)
                .description("Most threads the pool may have; the pool is fixed, so this is its configured size")
                .baseUnit("threads")
                .tags(executorTags)
                .register(registry);
        // The queue is unbounded, as is the JDK scheduler's, which reports Integer.MAX_VALUE here.
        Gauge.builder("executor.queue.remaining", engine, e -> Integer.MAX_VALUE)
                .description("Additional tasks the queue can hold; it is unbounded")
                .baseUnit("tasks")
                .tags(executorTags)
                .register(registry);
    }
}
