package io.timedjobs.scheduler.autoconfigure;

import io.timedjobs.scheduler.MisfirePolicy;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

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
     * What fixed-rate tasks do after falling behind: 'catch-up' runs every missed execution, 'skip'
     * moves on to the next slot that is not in the past.
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

    private final Cluster cluster = new Cluster();

    private final Jdbc jdbc = new Jdbc();

    public Cluster getCluster() {
        return cluster;
    }

    public Jdbc getJdbc() {
        return jdbc;
    }

    /** Several instances sharing one database (needs scheduler-jdbc and a DataSource). */
    public static class Cluster {

        /**
         * Whether instances share @Scheduled fires and durable tasks through the database. On by
         * default when scheduler-jdbc and a DataSource are present.
         */
        private boolean enabled = true;

        /**
         * Name of this instance in the tables and logs; unique among the instances. Defaults to
         * host name, process id and a random part.
         */
        private @Nullable String instanceName;

        /** How far ahead an instance claims durable tasks for its in-memory queue. */
        private Duration lookahead = Duration.ofSeconds(5);

        /**
         * How often an instance renews its heartbeat, measures the database clock and looks for
         * work and expired leases.
         */
        private Duration pollInterval = Duration.ofSeconds(1);

        /**
         * How long an instance counts as alive after its last heartbeat: claims and run leases of an
         * instance silent for longer are taken over by the others.
         */
        private Duration lease = Duration.ofSeconds(30);

        /**
         * Zone of cron jobs declared without one, shared by all instances and recorded with each
         * job. Defaults to the JVM's zone.
         */
        private @Nullable ZoneId timeZone;

        /**
         * Longest run of a clustered job: after it, the job's run lease expires and another
         * instance may start the job's next fire even if this run goes on.
         */
        private Duration maxRunTime = Duration.ofMinutes(10);

        /**
         * Age beyond which a fire is refused, so that an instance that lagged (a long pause, an
         * outage) cannot run it after its record was pruned. Fire records are kept twice as long.
         */
        private Duration fireHorizon = Duration.ofMinutes(1);

        /**
         * Jobs that run on every instance instead of once per fire, by job name (bean name, dot,
         * method name), as @RunOnEveryInstance does.
         */
        private List<String> localJobs = new ArrayList<>();

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public @Nullable String getInstanceName() {
            return instanceName;
        }

        public void setInstanceName(@Nullable String instanceName) {
            if (instanceName != null && (instanceName.isBlank() || instanceName.length() > 200)) {
                throw new IllegalArgumentException(
                        PREFIX + ".cluster.instance-name must be 1 to 200 characters, was '" + instanceName + "'");
            }
            this.instanceName = instanceName;
        }

        public Duration getLookahead() {
            return lookahead;
        }

        public void setLookahead(Duration lookahead) {
            this.lookahead = positive(lookahead, "lookahead");
        }

        public Duration getPollInterval() {
            return pollInterval;
        }

        public void setPollInterval(Duration pollInterval) {
            this.pollInterval = positive(pollInterval, "poll-interval");
        }

        public Duration getLease() {
            return lease;
        }

        public void setLease(Duration lease) {
            this.lease = positive(lease, "lease");
        }

        public @Nullable ZoneId getTimeZone() {
            return timeZone;
        }

        public void setTimeZone(@Nullable ZoneId timeZone) {
            this.timeZone = timeZone;
        }

        public Duration getMaxRunTime() {
            return maxRunTime;
        }

        public void setMaxRunTime(Duration maxRunTime) {
            this.maxRunTime = positive(maxRunTime, "max-run-time");
        }

        public Duration getFireHorizon() {
            return fireHorizon;
        }

        public void setFireHorizon(Duration fireHorizon) {
            this.fireHorizon = positive(fireHorizon, "fire-horizon");
        }

        public List<String> getLocalJobs() {
            return localJobs;
        }

        public void setLocalJobs(List<String> localJobs) {
            this.localJobs = new ArrayList<>(Objects.requireNonNull(localJobs, PREFIX + ".cluster.local-jobs"));
        }

        private static Duration positive(Duration value, String key) {
            Objects.requireNonNull(value, PREFIX + ".cluster." + key);
            if (value.isNegative() || value.isZero()) {
                throw new IllegalArgumentException(
                        PREFIX + ".cluster." + key + " must be positive (for example 1s), was " + value);
            }
            return value;
        }
    }

    /** The tables of scheduler-jdbc. */
    public static class Jdbc {

        /**
         * When to create the tables: 'embedded' for in-memory databases only, 'always', or 'never'
         * (then they must exist, created with the scripts in the scheduler-jdbc jar).
         */
        private InitializeSchema initializeSchema = InitializeSchema.EMBEDDED;

        /** Prefix of the table names: letters, digits and underscores, starting with a letter or underscore. */
        private String tablePrefix = "timed_jobs_";

        public InitializeSchema getInitializeSchema() {
            return initializeSchema;
        }

        public void setInitializeSchema(InitializeSchema initializeSchema) {
            this.initializeSchema = Objects.requireNonNull(initializeSchema, PREFIX + ".jdbc.initialize-schema");
        }

        public String getTablePrefix() {
            return tablePrefix;
        }

        public void setTablePrefix(String tablePrefix) {
            this.tablePrefix = Objects.requireNonNull(tablePrefix, PREFIX + ".jdbc.table-prefix");
        }

        /** Values of 'initialize-schema', as Spring Boot's own '*.jdbc.initialize-schema' keys. */
        public enum InitializeSchema {
            /** Create the tables in in-memory databases only. */
            EMBEDDED,
            /** Create the tables that are missing, on any database. */
            ALWAYS,
            /** Never create tables. */
            NEVER
        }
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

    private final Durable durable = new Durable();

    public Durable getDurable() {
        return durable;
    }

    /**
     * Durable tasks: stored in the database, claimed by one instance within the cluster lookahead
     * and retried on failure (needs scheduler-jdbc and a DataSource).
     */
    public static class Durable {

        /** How many times a durable task is started before it stays FAILED. */
        private int maxAttempts = 5;

        /** Delay before the first retry of a failed durable task; each further retry doubles it. */
        private Duration initialBackoff = Duration.ofSeconds(1);

        /** Longest delay between two retries of a failed durable task. */
        private Duration maxBackoff = Duration.ofMinutes(5);

        /** Most durable tasks one claim statement takes. */
        private int batchSize = 1000;

        /** Worker threads that run durable task handlers. Defaults to processors, at least 2. */
        private @Nullable Integer poolSize;

        public int getMaxAttempts() {
            return maxAttempts;
        }

        public void setMaxAttempts(int maxAttempts) {
            this.maxAttempts = atLeastOne(maxAttempts, "max-attempts");
        }

        public Duration getInitialBackoff() {
            return initialBackoff;
        }

        public void setInitialBackoff(Duration initialBackoff) {
            this.initialBackoff = notNegative(initialBackoff, "initial-backoff");
        }

        public Duration getMaxBackoff() {
            return maxBackoff;
        }

        public void setMaxBackoff(Duration maxBackoff) {
            this.maxBackoff = notNegative(maxBackoff, "max-backoff");
        }

        public int getBatchSize() {
            return batchSize;
        }

        public void setBatchSize(int batchSize) {
            this.batchSize = atLeastOne(batchSize, "batch-size");
        }

        public @Nullable Integer getPoolSize() {
            return poolSize;
        }

        public void setPoolSize(@Nullable Integer poolSize) {
            this.poolSize = poolSize == null ? null : atLeastOne(poolSize, "pool-size");
        }

        private static int atLeastOne(int value, String key) {
            if (value < 1) {
                throw new IllegalArgumentException(PREFIX + ".durable." + key + " must be at least 1, was " + value);
            }
            return value;
        }

        private static Duration notNegative(Duration value, String key) {
            Objects.requireNonNull(value, PREFIX + ".durable." + key);
            if (value.isNegative()) {
                throw new IllegalArgumentException(PREFIX + ".durable." + key + " must not be negative, was " + value);
            }
            return value;
        }
    }
}
