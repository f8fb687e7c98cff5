package io.timedjobs.scheduler.jdbc.cluster;

import io.timedjobs.scheduler.jdbc.RunOnEveryInstance;
import io.timedjobs.scheduler.spring.ReactiveScheduledMethod;
import io.timedjobs.scheduler.spring.ScheduledJobNames;
import java.lang.reflect.Method;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.scheduling.SchedulingAwareRunnable;
import org.springframework.scheduling.support.ScheduledMethodRunnable;
import org.springframework.util.ClassUtils;

/**
 * Thread-safe ({@link #describe} is synchronized: Spring registers tasks from the thread that
 * refreshes the context, and those of lazy beans from whichever thread creates them): names the
 * jobs behind the runnables Spring schedules, and decides which run once per fire.
 *
 * <p>A job's name is the bean name, a dot and the method name, plus {@code #0}, {@code #1}, ... in
 * order of registration when one method carries several {@code @Scheduled}: the same on every
 * instance running the same code, and the one the scheduler's job registry shows ({@link
 * ScheduledJobNames} names both). A reactive {@code @Scheduled} method (a {@code Publisher} or a
 * Kotlin {@code suspend} function, which Spring runs by subscribing) is a job like any other, named
 * the same way; its clustered runs subscribe through a {@link PublisherRun}. A clustered job's name
 * longer than {@link ScheduledJobNames#MAX_LENGTH} is refused when the job is scheduled, which fails
 * start-up.
 */
final class JobCatalog {

    /**
     * What the catalog decided for one scheduled runnable.
     *
     * @param run what a clustered job runs at each fire it gets: the runnable itself, or for a
     *     reactive method a {@link PublisherRun} that returns once its publisher has terminated
     */
    public record Job(
            String name,
            boolean clustered,
            String reason,
            @Nullable Method method,
            Runnable run) {

        Job(String name, boolean clustered, String reason, @Nullable Method method) {
            this(name, clustered, reason, method, () -> {
                throw new IllegalStateException("not a clustered job: " + name);
            });
        }
    }

    private static final boolean REACTIVE_STREAMS_PRESENT =
            ClassUtils.isPresent("org.reactivestreams.Publisher", JobCatalog.class.getClassLoader());

    private final ConfigurableListableBeanFactory beanFactory;
    private final Set<String> localJobs;
    private final Map<Runnable, Job> jobs = new IdentityHashMap<>();
    private final ScheduledJobNames names = new ScheduledJobNames();

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
        Object target;
        Method method;
        Runnable run = runnable;
        ScheduledMethodRunnable scheduled = ScheduledJobNames.unwrap(runnable);
        if (scheduled != null) {
            target = scheduled.getTarget();
            method = scheduled.getMethod();
        } else {
            ReactiveScheduledMethod reactive = reactive(runnable, onClusteredScheduler);
            if (reactive == null) {
                return new Job(runnable.toString(), false, "not a @Scheduled method", null);
            }
            target = reactive.target();
            method = reactive.method();
            run = new PublisherRun(reactive, qualifierOf(runnable).isEmpty() ? null : qualifierOf(runnable));
        }
        String beanName = ScheduledJobNames.singletonName(beanFactory, target);
        if (beanName == null) {
            return new Job(runnable.toString(), false, "not on a singleton bean", method);
        }
        String base = ScheduledJobNames.baseName(beanName, method);
        String name = names.register(beanName, method);
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
        int length = name.codePointCount(0, name.length());
        if (length > ScheduledJobNames.MAX_LENGTH) {
            // the database would refuse the name (or, on MariaDB, cut it to another job's name)
            throw new IllegalArgumentException(
                    "The job name of " + method.getDeclaringClass().getName() + "."
                            + method.getName() + ", '" + name + "', has " + length + " characters, over the "
                            + ScheduledJobNames.MAX_LENGTH + " that the cluster's tables hold: give the method a"
                            + " shorter @JobName, or its bean a shorter name");
        }
        return new Job(name, true, "", method, run);
    }

    /**
     * Returns the reactive method behind a runnable, or null if it is none. Spring's runnable of a
     * reactive method that cannot be read fails start-up if it goes to a clustered scheduler (it
     * would run on every instance); on another scheduler it is left alone.
     */
    private static @Nullable ReactiveScheduledMethod reactive(Runnable runnable, boolean onClusteredScheduler) {
        if (!REACTIVE_STREAMS_PRESENT) {
            return null;
        }
        try {
            return ReactiveScheduledMethod.of(runnable);
        } catch (IllegalStateException ex) {
            if (onClusteredScheduler) {
                throw ex;
            }
            return null;
        }
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
