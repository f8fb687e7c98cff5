package io.timedjobs.scheduler.spring;

import io.timedjobs.scheduler.ExecutionListener;
import io.timedjobs.scheduler.ExecutionListener.Outcome;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.scheduling.support.CronTrigger;
import org.springframework.scheduling.support.PeriodicTrigger;
import org.springframework.scheduling.support.ScheduledMethodRunnable;

/**
 * Thread-safe: the repeating jobs of one {@link LeaderFollowerTaskScheduler}, each a {@link
 * TrackedJob} named once, when it is scheduled. Jobs that end (cancelled, or a trigger with no next
 * time) leave the registry the next time it is listed or grows.
 *
 * <p>Names: a {@code @Scheduled} method is its bean name, a dot and its method name, plus {@code #0},
 * {@code #1}, ... in order of registration when one method carries several {@code @Scheduled}: the
 * name {@code scheduler-jdbc} gives its clustered jobs (which name themselves, {@link NamedJob}),
 * as both take it from {@link ScheduledJobNames}. Any other repeating task is named by its {@code
 * toString()}.
 */
public final class JobRegistry {

    private final Function<Object, @Nullable String> beanNames;
    private final Supplier<Clock> clock;
    private final ScheduledJobNames names = new ScheduledJobNames();

    // Guarded by this.
    private final List<TrackedJob> jobs = new ArrayList<>();
    private int pruneAt = 64;

    /**
     * @param beanNames the bean name of a {@code @Scheduled} method's target, or null if it is
     *     not a bean
     * @param clock the scheduler's clock, read when a job is tracked
     */
    JobRegistry(Function<Object, @Nullable String> beanNames, Supplier<Clock> clock) {
        this.beanNames = beanNames;
        this.clock = clock;
    }

    /** Returns the tracked job a piece of work belongs to, or null if it belongs to none. */
    public static @Nullable TrackedJob jobOf(Object work) {
        return work instanceof JobWork w ? w.trackedJob() : null;
    }

    /** Returns a listener that records each run of a tracked job in its job. */
    static ExecutionListener recorder() {
        return new ExecutionListener() {
            @Override
            public void onExecution(long latenessNanos, long durationNanos, Outcome outcome) {}

            @Override
            public void onExecution(Object work, long latenessNanos, long durationNanos, Outcome outcome) {
                TrackedJob job = jobOf(work);
                if (job != null) {
                    job.record(latenessNanos, durationNanos, outcome);
                }
            }
        };
    }

    /** Returns the jobs still scheduled, in order of registration. */
    public synchronized List<TrackedJob> jobs() {
        jobs.removeIf(TrackedJob::isEnded);
        return List.copyOf(jobs);
    }

    /** Returns the job of that name, if it is still scheduled. */
    public Optional<TrackedJob> find(String name) {
        return jobs().stream().filter(job -> job.name().equals(name)).findFirst();
    }

    /** Marks the jobs still scheduled as stopped by the shutdown, which begins now. */
    void shutdownBegins() {
        for (TrackedJob job : jobs()) {
            job.shutdownBegins();
        }
    }

    /** Records the fate of each fire the shutdown dropped so far; see {@link TrackedJob#recordDropByShutdown()}. */
    void recordDropsByShutdown() {
        for (TrackedJob job : jobs()) {
            job.recordDropByShutdown();
        }
    }

    /** Names a repeating task and tracks it; called once per schedule call. */
    TrackedJob track(Runnable task, String schedule) {
        TrackedJob job;
        if (task instanceof NamedJob named) {
            job = new TrackedJob(
                    named.jobName(),
                    named.jobSchedule(),
                    named.sharedByInstances(),
                    true,
                    named.unscheduledRun(),
                    clock.get());
        } else {
            ScheduledMethodRunnable method = ScheduledJobNames.unwrap(task);
            String name = method == null ? reactiveName(task) : methodName(method);
            job = new TrackedJob(
                    name == null ? task.toString() : name, schedule, false, name != null, task, clock.get());
        }
        synchronized (this) {
            if (jobs.size() >= pruneAt) {
                jobs.removeIf(TrackedJob::isEnded);
                pruneAt = Math.max(64, jobs.size() * 2);
            }
            jobs.add(job);
        }
        return job;
    }

    /**
     * Returns the name of a reactive {@code @Scheduled} method's job, or null for any other task
     * (and for Spring's runnable of a shape this code cannot read: only its name is at stake here).
     */
    private @Nullable String reactiveName(Runnable task) {
        ReactiveScheduledMethod reactive;
        try {
            reactive = ReactiveScheduledMethod.of(task);
        } catch (IllegalStateException ex) {
            return null;
        }
        if (reactive == null) {
            return null;
        }
        String bean = beanNames.apply(reactive.target());
        return bean == null ? null : names.register(bean, reactive.method());
    }

    private @Nullable String methodName(ScheduledMethodRunnable runnable) {
        String bean = beanNames.apply(runnable.getTarget());
        return bean == null ? null : names.register(bean, runnable.getMethod());
    }

    /** Returns a trigger's schedule in words. */
    static String describe(Object trigger) {
        if (trigger instanceof CronTrigger cron) {
            return "cron " + cron.getExpression();
        }
        if (trigger instanceof PeriodicTrigger periodic) {
            return (periodic.isFixedRate() ? "every " : "")
                    + words(periodic.getPeriodDuration())
                    + (periodic.isFixedRate() ? "" : " after each run");
        }
        return trigger.toString();
    }

    static String words(Duration duration) {
        return NamedJob.words(duration);
    }

    /** Implemented by the work the scheduler hands the engine for a tracked job. */
    interface JobWork {
        @Nullable
        TrackedJob trackedJob();
    }
}
