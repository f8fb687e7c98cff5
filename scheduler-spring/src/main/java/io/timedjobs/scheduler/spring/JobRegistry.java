package io.timedjobs.scheduler.spring;

import io.timedjobs.scheduler.ExecutionListener;
import io.timedjobs.scheduler.ExecutionListener.Outcome;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.scheduling.SchedulingAwareRunnable;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.support.CronTrigger;
import org.springframework.scheduling.support.PeriodicTrigger;
import org.springframework.scheduling.support.ScheduledMethodRunnable;
import org.springframework.util.ReflectionUtils;

/**
 * Thread-safe: the repeating jobs of one {@link LeaderFollowerTaskScheduler}, each a {@link
 * TrackedJob} named once, when it is scheduled. Jobs that end (cancelled, or a trigger with no next
 * time) leave the registry the next time it is listed or grows.
 *
 * <p>Names: a {@code @Scheduled} method is its bean name, a dot and its method name, plus {@code #0},
 * {@code #1}, ... in order of registration when one method carries several {@code @Scheduled}: the
 * name the clustered jobs of {@code scheduler-jdbc} use, which name themselves ({@link NamedJob}).
 * Any other repeating task is named by its {@code toString()}. Spring 6.2 and later wrap each
 * {@code @Scheduled} method in a runnable that tracks outcomes; it is unwrapped by reflection.
 */
public final class JobRegistry {

    private static final String OUTCOME_TRACKER = "org.springframework.scheduling.config.Task$OutcomeTrackingRunnable";

    private final Function<Object, @Nullable String> beanNames;
    private final Supplier<Clock> clock;

    // Guarded by this.
    private final List<TrackedJob> jobs = new ArrayList<>();
    private final Map<String, Integer> registrations = new HashMap<>();
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
            ScheduledMethodRunnable method = unwrap(task);
            String name = method == null ? null : methodName(method);
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

    private @Nullable String methodName(ScheduledMethodRunnable runnable) {
        String bean = beanNames.apply(runnable.getTarget());
        if (bean == null) {
            return null;
        }
        Method method = runnable.getMethod();
        String base = bean + "." + method.getName();
        if (AnnotatedElementUtils.getMergedRepeatableAnnotations(method, Scheduled.class)
                        .size()
                <= 1) {
            return base;
        }
        synchronized (this) {
            int index = registrations.merge(base, 1, Integer::sum) - 1;
            return base + "#" + index;
        }
    }

    /** Returns the {@code @Scheduled} method runnable inside, or null if there is none. */
    static @Nullable ScheduledMethodRunnable unwrap(Runnable runnable) {
        if (runnable instanceof ScheduledMethodRunnable scheduled) {
            return scheduled;
        }
        if (runnable instanceof SchedulingAwareRunnable
                && runnable.getClass().getName().equals(OUTCOME_TRACKER)) {
            Field field = ReflectionUtils.findField(runnable.getClass(), "runnable", Runnable.class);
            if (field != null) {
                ReflectionUtils.makeAccessible(field);
                Object inner = ReflectionUtils.getField(field, runnable);
                return inner instanceof ScheduledMethodRunnable scheduled ? scheduled : null;
            }
        }
        return null;
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
