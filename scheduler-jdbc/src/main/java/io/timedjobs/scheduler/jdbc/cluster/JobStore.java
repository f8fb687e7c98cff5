package io.timedjobs.scheduler.jdbc.cluster;

import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.ClusterInstance;
import io.timedjobs.scheduler.jdbc.database.JdbcDialect;
import io.timedjobs.scheduler.jdbc.database.Statement;
import io.timedjobs.scheduler.jdbc.history.FinishedRun;
import io.timedjobs.scheduler.jdbc.history.RunHistory;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Not API: used by the clustered jobs and by the dashboard's report. Thread-safe (stateless): runs
 * {@link JobSql}'s statements, one per decision. Every due check and every lease expiry is decided
 * by the database, on its own clock, inside the statement that acts on it; Java only binds values.
 * Throws Spring's {@code DataAccessException} when the database fails; callers count and log it.
 */
public final class JobStore {

    /** What acquiring a run lease found. */
    enum Lease {
        /** The lease was free (or stale under this instance's own name) and is now ours. */
        TAKEN,
        /** The lease was held by a dead instance or past its maximum run time, and is now ours. */
        TAKEN_OVER,
        /** Another run holds it. */
        BUSY
    }

    /**
     * A job's row as read; {@code definitionKey} and {@code definedAt} are null on a row no instance
     * of schema version 2 has touched yet, and {@code definedAt} then reads as {@code createdAt}.
     */
    record JobRow(
            String kind,
            String schedule,
            @Nullable String timeZone,
            @Nullable Instant anchorAt,
            @Nullable Instant nextFireAt,
            @Nullable String leaseOwner,
            @Nullable Instant leaseUntil,
            boolean paused,
            @Nullable String definitionKey,
            Instant definedAt,
            @Nullable String definedBy,
            boolean fenced) {}

    private final JdbcTemplate jdbc;
    private final JdbcDialect dialect;
    private final ClusterInstance instance;
    private final JobSql sql;
    private final RunHistory history;

    /** The statements of catch-up after downtime, of the job's definitions, of fixed-delay jobs, beside these. */
    private final CatchUpStore catchUp;

    private final JobDefinitionStore definitions;
    private final DelayedFireStore delayed;

    /** Fires going on here, whether more may begin, and who stays at a stop: see {@link Departure}. */
    private final Departure departure;

    /** The run leases this instance holds, and those it gave up since the heartbeat's last poll. */
    private final HeldLeases held = new HeldLeases();

    private final SkipGate skipGate;

    /** Creates the store of the jobs and fires tables, acting as {@code instance}. */
    public JobStore(ClusterDatabase database, ClusterInstance instance) {
        this(database, instance, RunHistory.disabled(database));
    }

    /** Creates the store, recording each run's end in {@code history}. */
    public JobStore(ClusterDatabase database, ClusterInstance instance, RunHistory history) {
        this.history = history;
        this.jdbc = database.jdbc();
        this.dialect = database.dialect();
        this.instance = instance;
        this.sql = JobSql.of(database.dialect(), database.tables(), instance.sql());
        this.catchUp = new CatchUpStore(database, instance, this);
        this.definitions = new JobDefinitionStore(database, instance, this);
        this.delayed = new DelayedFireStore(database, instance, this, history);
        this.skipGate = new SkipGate(jdbc, instance);
        this.departure = Departure.of(instance);
    }

    /** Returns the store of catch-up watermarks, for jobs whose policy catches up. */
    CatchUpStore catchUp() {
        return catchUp;
    }

    /** Returns the store of the job's definitions: the row's, the recorded ones and their carriers. */
    JobDefinitionStore definitions() {
        return definitions;
    }

    /** Returns the store of fixed-delay fires: claimed, completed and expired through the job's row. */
    DelayedFireStore delayed() {
        return delayed;
    }

    /** Returns this instance's name, the owner of the leases it takes. */
    String instanceName() {
        return instance.name();
    }

    /** Returns the job's row, or null if there is none. */
    @Nullable
    JobRow read(String job) {
        return jdbc.query(
                sql.read().sql(),
                rs -> rs.next()
                        ? new JobRow(
                                rs.getString("kind"),
                                rs.getString("schedule"),
                                rs.getString("time_zone"),
                                dialect.readInstant(rs, "anchor_at"),
                                dialect.readInstant(rs, "next_fire_at"),
                                rs.getString("lease_owner"),
                                dialect.readInstant(rs, "lease_until"),
                                rs.getBoolean("paused"),
                                rs.getString("definition_key"),
                                definedAt(rs),
                                rs.getString("defined_by"),
                                rs.getBoolean("fenced"))
                        : null,
                job);
    }

    private Instant definedAt(java.sql.ResultSet rs) throws java.sql.SQLException {
        Instant defined = dialect.readInstant(rs, "defined_at");
        return defined != null ? defined : java.util.Objects.requireNonNull(dialect.readInstant(rs, "created_at"));
    }

    /**
     * Pauses or resumes the job on every instance: while its row is paused, no instance runs its
     * fires. Returns false if the job has no row (no instance has registered it).
     */
    public boolean setPaused(String job, boolean paused) {
        return jdbc.update(sql.setPaused().sql(), paused, paused, job) == 1;
    }

    /** Returns whether the job's row is paused; false if it has none. */
    boolean isPaused(String job) {
        return Boolean.TRUE.equals(jdbc.query(sql.isPaused().sql(), rs -> rs.next() && rs.getBoolean("paused"), job));
    }

    /** Returns the names of the jobs paused on every instance. */
    public Set<String> pausedJobs() {
        return new HashSet<>(jdbc.queryForList(sql.pausedJobs().sql(), String.class));
    }

    /**
     * Records the fire (job, nominal instant) for this instance, unless recorded already, further
     * than the horizon from the database's time, or the job's row is paused or holds a definition
     * other than {@code definitionKey}. True for exactly one caller per fire, ever (see {@link
     * #pruneFires}).
     */
    boolean recordFire(String job, String definitionKey, Instant fireAt, Duration horizon) {
        Object at = dialect.bind(fireAt);
        long horizonMillis = horizon.toMillis();
        return dialect.insertIfAbsent(
                        jdbc,
                        sql.recordFire().sql(),
                        job,
                        at,
                        instance.name(),
                        at,
                        -horizonMillis,
                        at,
                        horizonMillis,
                        job,
                        definitionKey)
                == 1;
    }

    /**
     * Claims the fire (job, nominal instant) for a skip, paused or not: returns whether this instance
     * wrote its record, true for one caller per fire, ever; false when a run or another skip has it,
     * or the fire is further back than {@code horizon} (then no instance may record it any more).
     */
    boolean claimFire(String job, Instant fireAt, Duration horizon) {
        Object at = dialect.bind(fireAt);
        return dialect.insertIfAbsent(jdbc, sql.claimFire().sql(), job, at, instance.name(), at, -horizon.toMillis())
                == 1;
    }

    /**
     * What {@link #recordFireOrRead} found: whether this instance recorded the fire and, if not, the
     * job's definition and pause as the same statement saw them ({@code known} false where the
     * dialect cannot fold the read: the caller reads the row itself).
     */
    record FireAttempt(
            boolean recorded, boolean known, @Nullable String definitionKey, boolean paused) {

        /** An attempt whose statement said only whether it recorded the fire; why not is read apart. */
        static FireAttempt unexplained(boolean recorded) {
            return new FireAttempt(recorded, false, null, false);
        }
    }

    /**
     * {@link #recordFire}, and on a database that can fold it into the same statement, the read of
     * the job's row that tells a loser why: no statement of its own only to label the skip.
     */
    FireAttempt recordFireOrRead(String job, String definitionKey, Instant fireAt, Duration horizon) {
        return recordFireOrRead(job, definitionKey, fireAt, horizon, null);
    }

    private FireAttempt recordFireOrRead(
            String job, String definitionKey, Instant fireAt, Duration horizon, @Nullable String channel) {
        Statement folded = sql.recordFireOrRead(channel != null);
        if (folded == null) {
            return FireAttempt.unexplained(recordFire(job, definitionKey, fireAt, horizon));
        }
        Object at = dialect.bind(fireAt);
        long horizonMillis = horizon.toMillis();
        List<Object> binds =
                new ArrayList<>(List.of(job, job, at, instance.name(), at, -horizonMillis, at, horizonMillis));
        binds.add(definitionKey);
        if (channel != null) {
            binds.addAll(List.of(channel, FireNotices.payload(job, definitionKey, fireAt)));
        }
        return Objects.requireNonNull(jdbc.query(
                folded.sql(),
                rs -> {
                    rs.next();
                    String key = rs.getString("definition_key");
                    return new FireAttempt(rs.getLong("recorded") == 1, true, key, rs.getBoolean("paused"));
                },
                folded.args(binds.toArray())));
    }

    /**
     * Records the fire ({@link #recordFireOrRead}) and, when recorded, takes the job's run lease
     * ({@link #acquireLease}): in one statement where the dialect folds statements (PostgreSQL),
     * else in two. The lease is null when the fire was not recorded.
     */
    FireAndLease recordFireAndLease(
            String job, String definitionKey, Instant fireAt, Duration horizon, Duration maxRunTime) {
        return recordFireAndLease(job, definitionKey, fireAt, horizon, maxRunTime, null);
    }

    /** As above, announcing a recorded fire on {@code channel} (null: none) where the statement folds. */
    FireAndLease recordFireAndLease(
            String job,
            String definitionKey,
            Instant fireAt,
            Duration horizon,
            Duration maxRunTime,
            @Nullable String channel) {
        Statement folded = sql.recordFireAndLease(channel != null);
        if (folded == null) {
            FireAttempt attempt = recordFireOrRead(job, definitionKey, fireAt, horizon, channel);
            return new FireAndLease(attempt, attempt.recorded() ? acquireLease(job, maxRunTime) : null);
        }
        Object at = dialect.bind(fireAt);
        long horizonMillis = horizon.toMillis();
        List<Object> binds = new ArrayList<>(
                List.of(instance.deadAfterMillisParameter(), job, job, at, instance.name(), at, -horizonMillis, at));
        binds.addAll(List.of(horizonMillis, definitionKey, instance.name(), maxRunTime.toMillis(), job));
        binds.addAll(List.of(instance.name(), instance.deadAfterMillisParameter()));
        if (channel != null) {
            binds.addAll(List.of(channel, FireNotices.payload(job, definitionKey, fireAt)));
        }
        FireAndLease result = Objects.requireNonNull(jdbc.query(
                folded.sql(),
                rs -> {
                    rs.next();
                    FireAttempt attempt = new FireAttempt(
                            rs.getLong("recorded") == 1, true, rs.getString("definition_key"), rs.getBoolean("paused"));
                    if (!attempt.recorded()) {
                        return new FireAndLease(attempt, null);
                    }
                    String stale = rs.getString("stale_owner");
                    Lease lease = rs.getLong("leased") == 0
                            ? Lease.BUSY
                            : stale == null || stale.equals(instance.name()) ? Lease.TAKEN : Lease.TAKEN_OVER;
                    return new FireAndLease(attempt, lease);
                },
                folded.args(binds.toArray())));
        if (result.lease() == Lease.TAKEN || result.lease() == Lease.TAKEN_OVER) {
            held.took(job);
        }
        return result;
    }

    /** What {@link #recordFireAndLease} found: the attempt, and the lease when the fire was recorded. */
    record FireAndLease(FireAttempt attempt, @Nullable Lease lease) {}

    /**
     * Takes the job's run lease until the database's time plus {@code maxRunTime}, if it is free,
     * held under this instance's own name (a leftover of a crash), expired, or held by an instance
     * that is no longer alive.
     */
    Lease acquireLease(String job, Duration maxRunTime) {
        int free = jdbc.update(sql.takeFreeLease().sql(), instance.name(), maxRunTime.toMillis(), job, instance.name());
        if (free == 1) {
            held.took(job);
            return Lease.TAKEN;
        }
        int expired = jdbc.update(
                sql.takeExpiredLease().sql(),
                instance.name(),
                maxRunTime.toMillis(),
                job,
                instance.deadAfterMillisParameter());
        if (expired == 1) {
            held.took(job);
            return Lease.TAKEN_OVER;
        }
        return Lease.BUSY;
    }

    /** Expires the run leases a dead process left under this instance's name, as it registers; returns how many. */
    int expireLeftoverLeases() {
        return jdbc.update(sql.expireLeftoverLeases().sql(), instance.name());
    }

    /**
     * Releases the job's run lease if this instance still holds it; returns false if it no longer
     * did (taken over while this instance was paused, cut off, or ran past the maximum run time).
     */
    boolean releaseLease(String job) {
        try {
            return jdbc.update(sql.releaseLease().sql(), job, instance.name()) == 1;
        } finally {
            released(job); // after the write: a stop waiting for no lease held waits for it
        }
    }

    /**
     * As {@link #releaseLease(String)}, recording the run (what it threw, or null) in the same
     * transaction, even when the lease was lost, since it ran here: then in place of the abandoned
     * record a taker may have written meanwhile.
     */
    boolean releaseLease(String job, Instant fire, long durationNanos, @Nullable Throwable failure) {
        return releaseLease(job, fire, durationNanos, failure, false);
    }

    /** As above; {@code catchUp} for a run of a missed fire, run later by the job's catch-up policy. */
    boolean releaseLease(String job, Instant fire, long durationNanos, @Nullable Throwable failure, boolean catchUp) {
        try {
            boolean held = history.completeFenced(
                    sql.releaseLease().sql(),
                    Arrays.asList(job, instance.name()),
                    () -> releaseLease(job),
                    FinishedRun.ofJob(job, fire, instance.name(), durationNanos, failure, catchUp),
                    true);
            if (!held) {
                history.abandoned().endedLate(job, fire, instance.name());
            }
            return held;
        } finally {
            released(job);
        }
    }

    /** The run to record in the history: this instance ran {@code fire} of {@code job}. */
    FinishedRun run(String job, Instant fire, long durationNanos, @Nullable Throwable failure) {
        return FinishedRun.ofJob(job, fire, instance.name(), durationNanos, failure, false);
    }

    /** Returns the history the runs' ends and the skipped fires are written to. */
    RunHistory history() {
        return history;
    }

    /** Returns whether skips may be written now: no instance of an older schema is alive. */
    SkipGate skipGate() {
        return skipGate;
    }

    /** Returns this instance, as its row in the instances table stands for it. */
    ClusterInstance instance() {
        return instance;
    }

    /** Whether fires may begin on this instance, and the wait for those going at a stop. */
    Departure departure() {
        return departure;
    }

    /**
     * Returns the jobs whose run lease this instance took and has not released yet: what another
     * instance may take over if this one falls silent for longer than the lease.
     */
    public List<String> heldLeases() {
        return held.held();
    }

    /**
     * Returns the jobs whose run lease this instance holds or gave up since the heartbeat's last
     * poll ({@link #polled()}): what it held through a silence that poll finds.
     */
    public List<String> heldSinceLastPoll() {
        return held.heldSinceLastPoll();
    }

    /** Called as each poll of the heartbeat begins, before its silence check; see {@link HeldLeases#pollBegins()}. */
    void pollBegins() {
        held.pollBegins();
    }

    /** Called after each poll of the heartbeat: leases given up before it began are no longer reported. */
    void polled() {
        held.polled();
    }

    /** Notes a run lease taken by a statement of another store (see {@link DelayedFireStore}). */
    void took(String job) {
        held.took(job);
    }

    /** Notes a run lease given up (its release written, or tried): see {@link #heldSinceLastPoll()}. */
    void released(String job) {
        held.released(job);
    }

    /** Deletes fire records older than {@code keep}; returns how many. */
    int pruneFires(Duration keep) {
        return jdbc.update(sql.pruneFires().sql(), -keep.toMillis());
    }
}
