package io.timedjobs.scheduler.jdbc.cluster;

import io.micrometer.context.ThreadLocalAccessor;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe (stateless); created by Micrometer's {@code ContextRegistry}, which finds it through
 * {@code META-INF/services}: the {@link CurrentClusteredRun} as a thread-local value that context
 * propagation captures and restores. A reactive clustered run writes its run into its
 * subscription's Reactor {@code Context} under {@link #KEY}; with Reactor's automatic context
 * propagation on ({@code Hooks.enableAutomaticContextPropagation()}, which Spring Boot's {@code
 * spring.reactor.context-propagation=auto} calls), Reactor restores it around each operator's work,
 * so that {@link ClusteredJobs#currentFire()} answers on every thread of the run.
 */
public final class ClusteredRunAccessor implements ThreadLocalAccessor<Object> {

    /** Key of the clustered run in a Reactor {@code Context} and a context snapshot. */
    public static final String KEY = "timed-jobs.clustered.run";

    @Override
    public Object key() {
        return KEY;
    }

    @Override
    public @Nullable Object getValue() {
        return CurrentClusteredRun.current();
    }

    @Override
    public void setValue(Object value) {
        CurrentClusteredRun.set((CurrentClusteredRun.Run) value);
    }

    @Override
    public void setValue() {
        CurrentClusteredRun.set(null);
    }
}
