package io.timedjobs.scheduler.autoconfigure;

import static io.timedjobs.scheduler.autoconfigure.SchedulerProperties.PREFIX;

import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Bound once at start-up, then read by the auto-configurations: the {@code timed-jobs.cluster.*} keys
 * of several instances sharing one database (needs scheduler-jdbc and a DataSource).
 */
public class ClusterProperties {

    /**
     * Whether instances share @Scheduled fires and durable tasks through the database. On by
     * default when scheduler-jdbc and a DataSource are present.
     */
    private boolean enabled = true;

    /**
     * Name of this instance in the tables and logs; unique among the instances. Defaults to
     * host name, process id and a random part. A name whose heartbeat another live process keeps
     * renewing fails start-up; the name of a process that died is taken over, and its claims are
     * handed back.
     */
    private @Nullable String instanceName;

    /** How far ahead an instance claims durable tasks for its in-memory queue. */
    private Duration lookahead = Duration.ofSeconds(5);

    /**
     * How often an instance looks for work and expired claims (durable tasks, when it has a
     * handler) and tries again a failed heartbeat. The heartbeat itself goes at the pace the lease
     * sets, never more often than this, and the database clock is measured with it.
     */
    private Duration pollInterval = Duration.ofSeconds(1);

    /**
     * How long an instance counts as alive after its last heartbeat, and a durable task claim after
     * its last lease renewal: run leases and claims of an instance silent for longer are taken over
     * by the others. The heartbeat goes every half lease, so an instance paused or cut off from the
     * database for about half of it may be taken over.
     */
    private Duration lease = Duration.ofSeconds(30);

    /**
     * Zone of cron jobs declared without one, part of each such job's definition: a deploy that
     * changes it switches the job to the new zone. Defaults to the JVM's zone.
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

    /**
     * Longest wait of a scheduler thread on the database, for a connection and for each statement,
     * whatever the pool's own timeouts; a longer wait counts as the database being away.
     */
    private Duration databaseTimeout = Duration.ofSeconds(2);

    /**
     * Whether to hear of the fires other instances record through PostgreSQL's LISTEN/NOTIFY, on one
     * connection held per instance with clustered jobs: only one instance (see fire-placement) then
     * tries each fire at once, the others a moment later if they heard nothing. Ignored on other
     * databases, where every instance tries every fire.
     */
    private boolean listen = true;

    /**
     * Which instance tries each fire of a clustered job first, where instances hear of the fires
     * the others record (PostgreSQL, listen on): 'spread' chooses it anew for each fire, evenly
     * among the live instances; 'sticky' keeps a job on the instance that ran its last fire. Whoever
     * records a fire in the database runs it, either way.
     */
    private FirePlacement firePlacement = FirePlacement.SPREAD;

    /**
     * Settings of clustered jobs by job name (bean name, dot, method name; in brackets, since the
     * name holds a dot: {@code timed-jobs.cluster.jobs[reportService.sendDaily].catch-up.policy=each}).
     */
    private Map<String, Job> jobs = new LinkedHashMap<>();

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

    public boolean isListen() {
        return listen;
    }

    public void setListen(boolean listen) {
        this.listen = listen;
    }

    public FirePlacement getFirePlacement() {
        return firePlacement;
    }

    public void setFirePlacement(FirePlacement firePlacement) {
        this.firePlacement = Objects.requireNonNull(firePlacement, PREFIX + ".cluster.fire-placement");
    }

    public Duration getDatabaseTimeout() {
        return databaseTimeout;
    }

    public void setDatabaseTimeout(Duration databaseTimeout) {
        this.databaseTimeout = positive(databaseTimeout, "database-timeout");
    }

    public Map<String, Job> getJobs() {
        return jobs;
    }

    public void setJobs(Map<String, Job> jobs) {
        this.jobs = new LinkedHashMap<>(Objects.requireNonNull(jobs, PREFIX + ".cluster.jobs"));
    }

    /** Values of 'fire-placement': who tries each fire of a clustered job first. */
    public enum FirePlacement {
        /** Chosen anew for each fire, evenly among the live instances. */
        SPREAD,
        /** The instance that ran the job's last fire: a job runs where it ran last. */
        STICKY
    }

    /** The settings of one clustered job. */
    public static class Job {

        /**
         * What the cluster does with the job's fires missed while no instance ran it; each key given
         * wins over the job's @CatchUp.
         */
        private CatchUp catchUp = new CatchUp();

        public CatchUp getCatchUp() {
            return catchUp;
        }

        public void setCatchUp(CatchUp catchUp) {
            this.catchUp = Objects.requireNonNull(catchUp, "catch-up");
        }
    }

    /** A job's catch-up of missed fires; see docs/several-instances.md. */
    public static class CatchUp {

        /**
         * skip (missed fires are not run; the default without @CatchUp), once (the latest runs once)
         * or each (each runs, up to max-fires).
         */
        private @Nullable String policy;

        /** How far back a missed fire may lie to be run; default one day. */
        private @Nullable Duration window;

        /** The most missed fires the policy each runs, the latest ones; default 24. */
        private @Nullable Integer maxFires;

        public @Nullable String getPolicy() {
            return policy;
        }

        public void setPolicy(@Nullable String policy) {
            this.policy = policy;
        }

        public @Nullable Duration getWindow() {
            return window;
        }

        public void setWindow(@Nullable Duration window) {
            this.window = window;
        }

        public @Nullable Integer getMaxFires() {
            return maxFires;
        }

        public void setMaxFires(@Nullable Integer maxFires) {
            this.maxFires = maxFires;
        }
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
