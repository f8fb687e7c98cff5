package io.timedjobs.scheduler.jdbc.cluster;

import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.ClusterInstance;
import io.timedjobs.scheduler.jdbc.database.JdbcDialect;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
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

    /** A job's row as read. */
    record JobRow(
            String kind,
            String schedule,
            @Nullable String timeZone,
            @Nullable Instant anchorAt,
            @Nullable Instant nextFireAt,
            @Nullable String leaseOwner,
            @Nullable Instant leaseUntil,
            boolean paused) {}

    private final JdbcTemplate jdbc;
    private final JdbcDialect dialect;
    private final ClusterInstance instance;
    private final JobSql sql;

    /** Creates the store of the jobs and fires tables, acting as {@code instance}. */
    public JobStore(ClusterDatabase database, ClusterInstance instance) {
        this.jdbc = database.jdbc();
        this.dialect = database.dialect();
        this.instance = instance;
        this.sql = new JobSql(database.dialect(), database.tables(), instance.sql());
    }

    /** Returns this instance's name, the owner of the leases it takes. */
    String instanceName() {
        return instance.name();
    }

    /**
     * Writes the job's row unless it exists, fills in the anchor (fixed rate) or next fire (fixed
     * delay) if the row lacks it, and returns the row as the database holds it now.
     */
    JobRow register(
            String job,
            String kind,
            String schedule,
            @Nullable String timeZone,
            @Nullable Instant anchorAt,
            @Nullable Instant nextFireAt) {
        dialect.insertIfAbsent(
                jdbc,
                sql.register(),
                job,
                kind,
                schedule,
                timeZone,
                anchorAt == null ? null : JdbcDialect.bind(anchorAt),
                nextFireAt == null ? null : JdbcDialect.bind(nextFireAt));
        if (anchorAt != null) {
            jdbc.update(sql.fillAnchor(), JdbcDialect.bind(anchorAt), job);
        }
        if (nextFireAt != null) {
            jdbc.update(sql.fillNextFire(), JdbcDialect.bind(nextFireAt), job);
        }
        JobRow row = read(job);
        if (row == null) {
            throw new IllegalStateException("Row of job " + job + " vanished right after it was written");
        }
        return row;
    }

    /** Returns the job's row, or null if there is none. */
    @Nullable
    JobRow read(String job) {
        return jdbc.query(
                sql.read(),
                rs -> rs.next()
                        ? new JobRow(
                                rs.getString("kind"),
                                rs.getString("schedule"),
                                rs.getString("time_zone"),
                                JdbcDialect.readInstant(rs, "anchor_at"),
                                JdbcDialect.readInstant(rs, "next_fire_at"),
                                rs.getString("lease_owner"),
                                JdbcDialect.readInstant(rs, "lease_until"),
                                rs.getBoolean("paused"))
                        : null,
                job);
    }

    /**
     * Pauses or resumes the job on every instance: while its row is paused, no instance runs its
     * fires. Returns false if the job has no row (no instance has registered it).
     */
    public boolean setPaused(String job, boolean paused) {
        return jdbc.update(sql.setPaused(), paused, job) == 1;
    }

    /** Returns whether the job's row is paused; false if it has none. */
    boolean isPaused(String job) {
        return Boolean.TRUE.equals(jdbc.query(sql.isPaused(), rs -> rs.next() && rs.getBoolean("paused"), job));
    }

    /** Returns the names of the jobs paused on every instance. */
    public Set<String> pausedJobs() {
        return new HashSet<>(jdbc.queryForList(sql.pausedJobs(), String.class));
    }

    /**
     * Records the fire (job, nominal instant) for this instance, unless it is recorded already or
     * lies further than the horizon from the database's time, either way. Returns whether this
     * instance recorded it: true for exactly one caller per fire, ever (while the record lives; the
     * horizon outlasts no record, see {@link #pruneFires}). Nothing is recorded while the job's
     * row is paused.
     */
    boolean recordFire(String job, Instant fireAt, Duration horizon) {
        Object at = JdbcDialect.bind(fireAt);
        long horizonMillis = horizon.toMillis();
        return dialect.insertIfAbsent(
                        jdbc, sql.recordFire(), job, at, instance.name(), at, -horizonMillis, at, horizonMillis, job)
                == 1;
    }

    /**
     * Takes the job's run lease until the database's time plus {@code maxRunTime}, if it is free,
     * held under this instance's own name (a leftover of a crash), expired, or held by an instance
     * that is no longer alive.
     */
    Lease acquireLease(String job, Duration maxRunTime) {
        int free = jdbc.update(sql.takeFreeLease(), instance.name(), maxRunTime.toMillis(), job, instance.name());
        if (free == 1) {
            return Lease.TAKEN;
        }
        int expired = jdbc.update(
                sql.takeExpiredLease(),
                instance.name(),
                maxRunTime.toMillis(),
                job,
                instance.deadAfterMillisParameter());
        return expired == 1 ? Lease.TAKEN_OVER : Lease.BUSY;
    }

    /**
     * Expires the run leases a dead process left under this instance's name, as it registers;
     * returns how many.
     */
    int expireLeftoverLeases() {
        return jdbc.update(sql.expireLeftoverLeases(), instance.name());
    }

    /** Releases the job's run lease if this instance still holds it. */
    void releaseLease(String job) {
        jdbc.update(sql.releaseLease(), job, instance.name());
    }

    /**
     * Claims the fixed-delay fire due at {@code nextFireAt}: succeeds only if the row still holds
     * that next fire, it is due by the database's clock (give or take {@code early}), the job is
     * not paused, and no live run holds the lease. The claim clears the next fire (it is set again at completion) and takes
     * the lease until {@code maxRunTime} from now.
     */
    boolean claimDelayedFire(String job, Instant nextFireAt, Duration early, Duration maxRunTime) {
        return jdbc.update(
                        sql.claimDelayedFire(),
                        instance.name(),
                        maxRunTime.toMillis(),
                        job,
                        JdbcDialect.bind(nextFireAt),
                        early.toMillis(),
                        instance.name(),
                        instance.deadAfterMillisParameter())
                == 1;
    }

    /** Ends this instance's fixed-delay run: the next fire is the database's time plus the delay. */
    void completeDelayedFire(String job, Duration delay) {
        jdbc.update(sql.completeDelayedFire(), delay.toMillis(), job, instance.name());
    }

    /**
     * Ends a fixed-delay run whose holder died or ran past its maximum run time, as if it had
     * completed now: the next fire is the database's time plus the delay; the fire it held is not
     * run again. Returns whether it did (false when the run is alive or another instance was first).
     */
    boolean expireDelayedRun(String job, String owner, Duration delay) {
        return jdbc.update(
                        sql.expireDelayedRun(),
                        delay.toMillis(),
                        job,
                        owner,
                        instance.name(),
                        instance.deadAfterMillisParameter())
                == 1;
    }

    /** Deletes fire records older than {@code keep}; returns how many. */
    int pruneFires(Duration keep) {
        return jdbc.update(sql.pruneFires(), -keep.toMillis());
    }
}
