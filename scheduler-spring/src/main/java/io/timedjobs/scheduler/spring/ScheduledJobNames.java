package io.timedjobs.scheduler.spring;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.scheduling.SchedulingAwareRunnable;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.support.ScheduledMethodRunnable;
import org.springframework.util.ReflectionUtils;

/**
 * Thread-safe: the names of the jobs behind {@code @Scheduled} methods, the one place that finds
 * the method inside a runnable Spring schedules and names it. The {@link JobRegistry} and the
 * clustered jobs of {@code scheduler-jdbc} both name jobs here, so that a job has one name in
 * listings, meters, the dashboard and the cluster's tables, the same on every instance running the
 * same code.
 *
 * <p>A job's name is the bean name, a dot and the method name, plus {@code #0}, {@code #1}, ... in
 * order of registration when one method carries several {@code @Scheduled}; each instance counts
 * those registrations for the scheduler it serves. Spring wraps each {@code @Scheduled} method in a
 * {@link ScheduledMethodRunnable} (target and method), which Spring 6.2 and later wrap again to
 * track outcomes; that outer wrapper has no accessor for what it wraps, so it is unwrapped by
 * reflection.
 */
public final class ScheduledJobNames {

    /** The class of the runnable Spring 6.2 and later wrap a task in; its {@code runnable} field is read. */
    public static final String OUTCOME_TRACKER = "org.springframework.scheduling.config.Task$OutcomeTrackingRunnable";

    /**
     * The longest job name, in characters: the length of the {@code job_name} columns of the
     * cluster's tables ({@code VARCHAR(300)} in every schema script).
     */
    public static final int MAX_LENGTH = 300;

    // Guarded by this: how many times each method with several @Scheduled was named, by base name.
    private final Map<String, Integer> registrations = new HashMap<>();

    /**
     * Returns the name of one more registration of a {@code @Scheduled} method: its {@link
     * #baseName}, with the index of this registration when the method carries several.
     */
    public String register(String beanName, Method method) {
        String base = baseName(beanName, method);
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

    /**
     * Returns the name of a method's jobs without a registration index: the one its {@link JobName}
     * gives, else bean, dot, method.
     *
     * @throws IllegalArgumentException if a {@link JobName} is blank or longer than 300 characters
     */
    public static String baseName(String beanName, Method method) {
        JobName given = AnnotatedElementUtils.findMergedAnnotation(method, JobName.class);
        if (given == null) {
            return beanName + "." + method.getName();
        }
        String name = given.value();
        if (name.isBlank() || name.codePointCount(0, name.length()) > MAX_LENGTH) {
            throw new IllegalArgumentException(
                    "@JobName on " + method.getDeclaringClass().getName() + "." + method.getName() + " must be 1 to "
                            + MAX_LENGTH + " characters, not blank, was '" + name + "'");
        }
        return name;
    }

    /** Whether a method's job names come from its {@link JobName}, not from bean and method. */
    public static boolean isGiven(Method method) {
        return AnnotatedElementUtils.hasAnnotation(method, JobName.class);
    }

    /**
     * Returns the {@code @Scheduled} method runnable inside, or null if there is none (a reactive
     * {@code @Scheduled} method is scheduled as another runnable, which {@link
     * ReactiveScheduledMethod} reads).
     */
    public static @Nullable ScheduledMethodRunnable unwrap(Runnable runnable) {
        return withoutOutcomeTracking(runnable) instanceof ScheduledMethodRunnable scheduled ? scheduled : null;
    }

    /**
     * Returns the runnable that Spring 6.2 and later wrapped to track its outcomes, or the runnable
     * itself when it is no such wrapper.
     */
    public static Runnable withoutOutcomeTracking(Runnable runnable) {
        if (runnable instanceof SchedulingAwareRunnable
                && runnable.getClass().getName().equals(OUTCOME_TRACKER)) {
            Field field = ReflectionUtils.findField(runnable.getClass(), "runnable", Runnable.class);
            if (field != null) {
                ReflectionUtils.makeAccessible(field);
                Object inner = ReflectionUtils.getField(field, runnable);
                if (inner instanceof Runnable wrapped) {
                    return wrapped;
                }
            }
        }
        return runnable;
    }

    /**
     * Returns the name of the singleton that is {@code target} itself, or null if there is none:
     * a job is named after its bean only when it is the bean's own instance.
     */
    public static @Nullable String singletonName(ConfigurableListableBeanFactory beans, Object target) {
        for (String name : beans.getSingletonNames()) {
            if (beans.getSingleton(name) == target) {
                return name;
            }
        }
        return null;
    }
}
