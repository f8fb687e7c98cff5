package io.timedjobs.scheduler.jdbc.cluster;

import io.timedjobs.scheduler.jdbc.RunOnEveryInstance;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.scheduling.SchedulingAwareRunnable;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.support.ScheduledMethodRunnable;
import org.springframework.util.ReflectionUtils;

/**
 * Thread-safe ({@link #describe} is synchronized: Spring registers tasks from the thread that
 * refreshes the context, and those of lazy beans from whichever thread creates them): names the
 * jobs behind the runnables Spring schedules, and decides which run once per fire.
 *
 * <p>A job's name is the bean name, a dot and the method name, plus {@code #0}, {@code #1}, ... in
 * order of registration when one method carries several {@code @Scheduled}: the same on every
 * instance running the same code. Spring wraps each {@code @Scheduled} method in a {@link
 * ScheduledMethodRunnable} (target and method), which Spring 6.2 and later wrap again to track
 * outcomes; that outer wrapper is unwrapped by reflection.
 */
final class JobCatalog {

    /** What the catalog decided for one scheduled runnable. */
    public record Job(
            String name,
            boolean clustered,
            String reason,
            @Nullable Method method) {}

    private static final String OUTCOME_TRACKER = "org.springframework.scheduling.config.Task$OutcomeTrackingRunnable";

    private final ConfigurableListableBeanFactory beanFactory;
    private final Set<String> localJobs;
    private final Map<Runnable, Job> jobs = new IdentityHashMap<>();
    private final Map<String, Integer> registrations = new HashMap<>();

    public JobCatalog(ConfigurableListableBeanFactory beanFactory, Set<String> localJobs) {
        this.beanFactory = Objects.requireNonNull(beanFactory, "beanFactory");
        this.localJobs = Set.copyOf(localJobs);
    }

    /**
     * Returns the job of a runnable handed to the scheduler, naming it on first sight.
     *
     * @param onClusteredScheduler whether the runnable goes to a scheduler whose jobs are clustered
     */
    public synchronized Job describe(Runnable runnable, boolean onClusteredScheduler) {
        Job known = jobs.get(runnable);
        if (known != null) {
            return known;
        }
        Job job = name(runnable, onClusteredScheduler);
        jobs.put(runnable, job);
        return job;
    }

    private Job name(Runnable runnable, boolean onClusteredScheduler) {
        ScheduledMethodRunnable scheduled = unwrap(runnable);
        if (scheduled == null) {
            return new Job(runnable.toString(), false, "not a @Scheduled method", null);
        }
        Object target = scheduled.getTarget();
        Method method = scheduled.getMethod();
        String beanName = beanNameOf(target);
        if (beanName == null) {
            return new Job(runnable.toString(), false, "not on a singleton bean", method);
        }
        String base = beanName + "." + method.getName();
        int count = AnnotatedElementUtils.getMergedRepeatableAnnotations(method, Scheduled.class)
                .size();
        String name = base;
        if (count > 1) {
            int index = registrations.merge(base, 1, Integer::sum) - 1;
            name = base + "#" + index;
        }
        if (!onClusteredScheduler) {
            return new Job(name, false, "on another scheduler", method);
        }
        Class<?> targetClass = AopUtils.getTargetClass(target);
        if (AnnotatedElementUtils.hasAnnotation(method, RunOnEveryInstance.class)
                || AnnotatedElementUtils.hasAnnotation(targetClass, RunOnEveryInstance.class)) {
            return new Job(name, false, "@RunOnEveryInstance", method);
        }
        if (localJobs.contains(name) || localJobs.contains(base)) {
            return new Job(name, false, "timed-jobs.cluster.local-jobs", method);
        }
        return new Job(name, true, "", method);
    }

    private @Nullable String beanNameOf(Object target) {
        for (String name : beanFactory.getSingletonNames()) {
            if (beanFactory.getSingleton(name) == target) {
                return name;
            }
        }
        return null;
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

    /** Returns the qualifier of the scheduler a runnable asks for, or "" for the default one. */
    static String qualifierOf(Runnable runnable) {
        if (runnable instanceof SchedulingAwareRunnable aware) {
            String qualifier = aware.getQualifier();
            return qualifier == null ? "" : qualifier;
        }
        return "";
    }
}
