package io.timedjobs.scheduler.autoconfigure;

import io.timedjobs.scheduler.MisfirePolicy;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;

/**
 * Settings of the auto-configured scheduler, under {@code timed-jobs}: every key of the starter
 * and of its optional modules lives in this one tree. Bound by Spring Boot at start-up.
 *
 * <p>Unknown keys are refused ({@code ignoreUnknownFields = false}, which covers every nested
 * class reached through a getter, present and future), so that a misspelled key stops start-up
 * with its name instead of being ignored. Setters check their values, so that a bad one fails
 * start-up with a message that names the key and what it accepts.
 */
@ConfigurationProperties(prefix = SchedulerProperties.PREFIX, ignoreUnknownFields = false)
public class SchedulerProperties {

    /** Prefix of every key. */
    public static final String PREFIX = "timed-jobs";

    /** Whether to replace Spring's default task scheduler with the Timed Jobs scheduler. */
    private boolean enabled = true;

    /** Default of {@link #threadNamePrefix} when no Spring Boot prefix is set either. */
    public static final String DEFAULT_THREAD_NAME_PREFIX = "timed-jobs-";

    /**
     * Number of worker threads. Defaults to 'spring.task.scheduling.pool.size' when that is set,
     * else to the number of available processors, at least 2.
     */
    private @Nullable Integer poolSize;

    /**
     * Prefix of worker thread names, followed by a number. Defaults to
     * 'spring.task.scheduling.thread-name-prefix' when that is set, else to 'timed-jobs-'.
     */
    private @Nullable String threadNamePrefix;

    /**
     * Whether to run tasks on virtual threads (Java 21 or later). Defaults to the value of
     * 'spring.threads.virtual.enabled' on Java 21 or later, and to false before.
     */
    private @Nullable Boolean virtualThreads;

    /**
     * Most tasks running at once on virtual threads; unset means no limit. Applies only with
     * virtual threads (a pool of platform threads is its own limit). Defaults to
     * 'spring.task.scheduling.simple.concurrency-limit' when that is set to 1 or more.
     */
    private @Nullable Integer concurrencyLimit;

    /**
     * What fixed-rate tasks do after falling behind while the scheduler runs: 'catch-up' runs every
     * missed execution, 'skip' moves on to the next slot that is not in the past. Not the catch-up of
     * fires missed while no instance ran a clustered job (timed-jobs.cluster.jobs[...].catch-up),
     * whose default is skip.
     */
    private MisfirePolicy misfirePolicy = MisfirePolicy.CATCH_UP;

    private final Shutdown shutdown = new Shutdown();

    private final Metrics metrics = new Metrics();

    private final Health health = new Health();

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public @Nullable Integer getPoolSize() {
        return poolSize;
    }

    public void setPoolSize(@Nullable Integer poolSize) {
        if (poolSize != null && poolSize < 1) {
            throw new IllegalArgumentException(PREFIX + ".pool-size must be 1 or more, was " + poolSize);
        }
        this.poolSize = poolSize;
    }

    public @Nullable String getThreadNamePrefix() {
        return threadNamePrefix;
    }

    public void setThreadNamePrefix(@Nullable String threadNamePrefix) {
        this.threadNamePrefix = threadNamePrefix;
    }

    public @Nullable Boolean getVirtualThreads() {
        return virtualThreads;
    }

    public void setVirtualThreads(@Nullable Boolean virtualThreads) {
        this.virtualThreads = virtualThreads;
    }

    public @Nullable Integer getConcurrencyLimit() {
        return concurrencyLimit;
    }

    public void setConcurrencyLimit(@Nullable Integer concurrencyLimit) {
        if (concurrencyLimit != null && concurrencyLimit < 1) {
            throw new IllegalArgumentException(PREFIX
                    + ".concurrency-limit must be 1 or more (leave it unset for no limit), was " + concurrencyLimit);
        }
        this.concurrencyLimit = concurrencyLimit;
    }

    public MisfirePolicy getMisfirePolicy() {
        return misfirePolicy;
    }

    public void setMisfirePolicy(MisfirePolicy misfirePolicy) {
        this.misfirePolicy = Objects.requireNonNull(misfirePolicy, PREFIX + ".misfire-policy");
    }

    public Shutdown getShutdown() {
        return shutdown;
    }

    public Metrics getMetrics() {
        return metrics;
    }

    public Health getHealth() {
        return health;
    }

    /** What happens to tasks when the application context closes. */
    public static class Shutdown {

        /**
         * Whether one-shot tasks still waiting for their time at shutdown run when it comes (as
         * long as shutdown waits for them); when false they are cancelled.
         */
        private boolean executeExistingDelayedTasks = true;

        /** Whether repeating tasks keep running after shutdown, until the await period ends. */
        private boolean continueExistingPeriodicTasks = false;

        /**
         * Whether closing the context waits for running and remaining tasks; when false, running
         * tasks are interrupted and waiting ones dropped. Defaults to
         * 'spring.task.scheduling.shutdown.await-termination' when that is set, else to true.
         */
        private @Nullable Boolean awaitTermination;

        /**
         * Longest time closing the context waits for the scheduler to terminate; after it, running
         * tasks are interrupted and waiting ones dropped. The wait also ends with
         * 'spring.lifecycle.timeout-per-shutdown-phase' when that is shorter. Defaults to
         * 'spring.task.scheduling.shutdown.await-termination-period' when that is set, else to
         * 30s.
         */
        private @Nullable Duration awaitTerminationPeriod;

        public boolean isExecuteExistingDelayedTasks() {
            return executeExistingDelayedTasks;
        }

        public void setExecuteExistingDelayedTasks(boolean executeExistingDelayedTasks) {
            this.executeExistingDelayedTasks = executeExistingDelayedTasks;
        }

        public boolean isContinueExistingPeriodicTasks() {
            return continueExistingPeriodicTasks;
        }

        public void setContinueExistingPeriodicTasks(boolean continueExistingPeriodicTasks) {
            this.continueExistingPeriodicTasks = continueExistingPeriodicTasks;
        }

        public @Nullable Boolean getAwaitTermination() {
            return awaitTermination;
        }

        public void setAwaitTermination(@Nullable Boolean awaitTermination) {
            this.awaitTermination = awaitTermination;
        }

        public @Nullable Duration getAwaitTerminationPeriod() {
            return awaitTerminationPeriod;
        }

        public void setAwaitTerminationPeriod(@Nullable Duration awaitTerminationPeriod) {
            if (awaitTerminationPeriod != null && awaitTerminationPeriod.isNegative()) {
                throw new IllegalArgumentException(PREFIX
                        + ".shutdown.await-termination-period must be zero or positive (for example 30s), was "
                        + awaitTerminationPeriod);
            }
            this.awaitTerminationPeriod = awaitTerminationPeriod;
        }
    }

    /** Micrometer meters of the scheduler. */
    public static class Metrics {

        /** Whether to publish the scheduler's meters when Micrometer is present. */
        private boolean enabled = true;

        /**
         * Whether to publish a percentile histogram of task lateness
         * ('scheduler.task.lateness'), for percentiles aggregated across instances.
         */
        private boolean latenessHistogram = false;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public boolean isLatenessHistogram() {
            return latenessHistogram;
        }

        public void setLatenessHistogram(boolean latenessHistogram) {
            this.latenessHistogram = latenessHistogram;
        }
    }

    /** Health of the scheduler, for the actuator's health endpoint. */
    public static class Health {

        /**
         * Lateness of the most overdue waiting task above which health reports the scheduler
         * late (status 'LATE', detail 'late: true'); unset means never. Lateness alone never
         * makes the scheduler DOWN or OUT_OF_SERVICE.
         */
        private @Nullable Duration latenessThreshold;

        public @Nullable Duration getLatenessThreshold() {
            return latenessThreshold;
        }

        public void setLatenessThreshold(@Nullable Duration latenessThreshold) {
            if (latenessThreshold != null && (latenessThreshold.isNegative() || latenessThreshold.isZero())) {
                throw new IllegalArgumentException(PREFIX
                        + ".health.lateness-threshold must be positive (for example 30s), was " + latenessThreshold);
            }
            this.latenessThreshold = latenessThreshold;
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Several instances (scheduler-jdbc)

    @NestedConfigurationProperty
    private final ClusterProperties cluster = new ClusterProperties();

    @NestedConfigurationProperty
    private final JdbcProperties jdbc = new JdbcProperties();

    public ClusterProperties getCluster() {
        return cluster;
    }

    public JdbcProperties getJdbc() {
        return jdbc;
    }

    // ---------------------------------------------------------------------------------------------
    // The live page

    private final Dashboard dashboard = new Dashboard();

    public Dashboard getDashboard() {
        return dashboard;
    }

    /** The live page of jobs, lateness and durable tasks (servlet web applications). */
    public static class Dashboard {

        /**
         * Whether to serve the live page at '/timed-jobs' and its data at '/timed-jobs/data'.
         * Secure them as any other page of the application.
         */
        private boolean enabled = false;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Durable tasks (scheduler-jdbc)

    @NestedConfigurationProperty
    private final DurableProperties durable = new DurableProperties();

    public DurableProperties getDurable() {
        return durable;
    }

    // Run history (scheduler-jdbc)

    @NestedConfigurationProperty
    private final HistoryProperties history = new HistoryProperties();

    public HistoryProperties getHistory() {
        return history;
    }
}
