package io.timedjobs.scheduler.jdbc.database;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcOperations;

/**
 * Not API: used by the auto-configuration, the clustered jobs, durable tasks and the dashboard.
 * Thread-safe: this instance's row in the instances table, and the reads of the others' rows. {@link #register()}, {@link
 * #heartbeat()} and {@link #deregister()} are called by one thread at a time (start-up, the poll
 * thread, shutdown); {@link #name()}, {@link #sql()} and the reads by any thread.
 *
 * <p>An instance is alive while its heartbeat is younger than the lease: the run leases held by an
 * instance that is not alive may be taken over by the others. An instance beats every {@linkplain
 * #beatInterval() beat interval}, as given; the auto-configuration gives {@link
 * LeaseRule#beatInterval}, and {@link LeaseRule} says how soon an instance paused or cut off from
 * the database may count as dead. Rows of dead instances are pruned by whoever {@linkplain
 * #pruneDead() prunes} next (the heartbeat, every few leases); {@link LeaseRule} says how old.
 *
 * <p>Names are unique: {@link #register()} refuses a name whose row another live process keeps
 * beating (see there), and takes over the row of a process that died under this name, running the
 * {@linkplain #addStartAction start actions} that hand that process's claims back.
 */
public final class ClusterInstance {

    private static final Log logger = LogFactory.getLog(ClusterInstance.class);

    private final JdbcOperations jdbc;
    private final JdbcDialect dialect;
    private final InstanceSql sql;
    private final String name;
    private final Duration lease;
    private final Duration beatInterval;
    private final Sleeper sleeper;
    private final List<Runnable> startActions = new CopyOnWriteArrayList<>();

    /** The read of the live instances each beat may carry; see {@link #watchLiveInstances}. */
    private final LiveInstancesRead live;

    /** Whether the row under this name was written by this object (and not removed since). */
    private volatile boolean ownsRow;

    /**
     * Creates this instance's registry entry with a beat interval of 1 s and the system's
     * sleeper; see {@link #ClusterInstance(JdbcOperations, JdbcDialect, TableNames, String, Duration,
     * Duration, Sleeper)}.
     */
    public ClusterInstance(JdbcOperations jdbc, JdbcDialect dialect, TableNames tables, String name, Duration lease) {
        this(jdbc, dialect, tables, name, lease, Duration.ofSeconds(1), Sleeper.system());
    }

    /**
     * Creates this instance's registry entry; nothing is written until {@link #register()}.
     *
     * @param name this instance's name, unique among the instances on the database; see {@link
     *     #defaultName()}
     * @param lease how long after its last heartbeat an instance counts as dead
     * @param beatInterval how often instances beat (their {@linkplain #beatInterval() beat
     *     interval}; see {@link LeaseRule#beatInterval} for the pace the auto-configuration gives): a
     *     row left under this name is watched for {@value LeaseRule#WATCHED_BEATS} of them at start-up
     * @param sleeper what waits through that watch
     */
    public ClusterInstance(
            JdbcOperations jdbc,
            JdbcDialect dialect,
            TableNames tables,
            String name,
            Duration lease,
            Duration beatInterval,
            Sleeper sleeper) {
        this.beatInterval = Objects.requireNonNull(beatInterval, "beatInterval");
        this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
        this.jdbc = Objects.requireNonNull(jdbc, "jdbc");
        this.dialect = Objects.requireNonNull(dialect, "dialect");
        this.sql = new InstanceSql(dialect, Objects.requireNonNull(tables, "tables"));
        this.name = checkName(name);
        Objects.requireNonNull(lease, "lease");
        if (lease.isNegative() || lease.isZero()) {
            throw new IllegalArgumentException("timed-jobs.cluster.lease must be positive, was " + lease);
        }
        this.lease = lease;
        this.live = new LiveInstancesRead(sql.liveNamesColumn(), lease);
    }

    private static String checkName(String name) {
        Objects.requireNonNull(name, "timed-jobs.cluster.instance-name");
        if (name.isBlank() || name.length() > 200) {
            throw new IllegalArgumentException(
                    "timed-jobs.cluster.instance-name must be 1 to 200 characters, not blank, was '" + name + "'");
        }
        return name;
    }

    /**
     * Returns a name unique even among several instances in one JVM: host name, process id and a
     * random part, for example {@code web-7f9c-4242-1a2b3c}.
     */
    public static String defaultName() {
        byte[] random = new byte[3];
        ThreadLocalRandom.current().nextBytes(random);
        return hostName() + "-" + ProcessHandle.current().pid() + "-"
                + HexFormat.of().formatHex(random);
    }

    private static String hostName() {
        String fromEnvironment = System.getenv("HOSTNAME");
        if (fromEnvironment != null && !fromEnvironment.isBlank()) {
            return shorten(fromEnvironment);
        }
        try {
            return shorten(InetAddress.getLocalHost().getHostName());
        } catch (UnknownHostException ex) {
            return "host";
        }
    }

    private static String shorten(String host) {
        String trimmed = host.trim().toLowerCase(Locale.ROOT);
        return trimmed.length() > 100 ? trimmed.substring(0, 100) : trimmed;
    }

    /** Returns this instance's name. */
    public String name() {
        return name;
    }

    /** Returns how long after its last heartbeat an instance counts as dead. */
    public Duration lease() {
        return lease;
    }

    /**
     * Adds an action run by {@link #register()} once it has written this instance's row, before it
     * returns (so before the first heartbeat and the poll actions): the durable tasks hand back there
     * the claims a previous process left under this name. An action that throws fails the
     * registration, which the next poll tries again.
     */
    public void addStartAction(Runnable action) {
        startActions.add(Objects.requireNonNull(action, "action"));
    }

    /**
     * Writes this instance's row with start time and heartbeat on the database's clock, then runs
     * the {@linkplain #addStartAction start actions}.
     *
     * <p>A row already under this name whose heartbeat is younger than the lease is watched for {@value
     * LeaseRule#WATCHED_BEATS} beat intervals: if its heartbeat moves, another live process has the name and this one refuses
     * to start; if not, the process that wrote it died (a restart after a crash, or a long pause) and
     * its row is taken over, logged at INFO with the age of its last beat. A row whose heartbeat is older
     * than the lease is taken over at once.
     *
     * @throws DuplicateInstanceNameException when another live process uses this name
     */
    public void register() {
        if (dialect.insertIfAbsent(jdbc, sql.register().sql(), name) == 0) {
            if (ownsRow) {
                jdbc.update(sql.restart().sql(), name);
            } else {
                takeOver();
            }
        }
        ownsRow = true;
        for (Runnable action : startActions) {
            action.run();
        }
    }

    /**
     * Whether this instance's row is its own: {@link #register()} wrote it and no stop has removed
     * it since.
     */
    public boolean registered() {
        return ownsRow;
    }

    private void takeOver() {
        Registration seen = registration();
        if (seen == null || seen.heartbeatAt() == null) {
            insertAfterAll();
            return;
        }
        boolean alive = !jdbc.queryForList(sql.isAlive().sql(), Integer.class, name, deadAfterMillisParameter())
                .isEmpty();
        if (alive) {
            for (int beat = 1; beat <= LeaseRule.WATCHED_BEATS; beat++) {
                waitOneBeat();
                Registration now = registration();
                if (now == null) {
                    // its process stopped gracefully meanwhile
                    insertAfterAll();
                    return;
                }
                if (!seen.heartbeatAt().equals(now.heartbeatAt())) {
                    throw duplicate(seen, now);
                }
            }
        }
        int taken = jdbc.update(sql.takeOver().sql(), name, dialect.bind(seen.heartbeatAt()));
        if (taken == 0) {
            Registration now = registration();
            if (now != null) {
                throw duplicate(seen, now);
            }
            insertAfterAll();
            return;
        }
        // A restart after a crash or a kill: expected, and nothing for an operator to do.
        long silentMillis =
                Duration.between(seen.heartbeatAt(), dialect.currentTime(jdbc)).toMillis();
        logger.info("This process takes over the name '" + name + "' of an instance whose last beat was "
                + silentMillis + " ms ago (started at " + seen.startedAt() + ", stopped without deregistering"
                + (alive ? "; its row was watched for " + LeaseRule.WATCHED_BEATS + " beat intervals" : "")
                + "), and hands back the claims and run leases it left");
    }

    /** Inserts the row after the one seen went away; another process may have written it meanwhile. */
    private void insertAfterAll() {
        if (dialect.insertIfAbsent(jdbc, sql.register().sql(), name) == 0) {
            throw duplicate(null, registration());
        }
    }

    private void waitOneBeat() {
        try {
            sleeper.sleep(beatInterval);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while watching the row of instance name '" + name + "'", ex);
        }
    }

    private DuplicateInstanceNameException duplicate(@Nullable Registration seen, @Nullable Registration now) {
        String startedAt = now == null ? "?" : String.valueOf(now.startedAt());
        String moved = seen == null || now == null
                ? "it wrote its row while this one started"
                : "its heartbeat in " + sql.table() + " moved from " + seen.heartbeatAt() + " to " + now.heartbeatAt()
                        + " within " + LeaseRule.WATCHED_BEATS + " beat intervals";
        return new DuplicateInstanceNameException(name, "that process started at " + startedAt + ", and " + moved);
    }

    private @Nullable Registration registration() {
        return jdbc.query(
                sql.registration().sql(),
                rs -> rs.next()
                        ? new Registration(
                                name, dialect.readInstant(rs, "started_at"), dialect.readInstant(rs, "heartbeat_at"))
                        : null,
                name);
    }

    /**
     * Renews this instance's heartbeat, writing the row again if another instance pruned it, and
     * prunes the rows of dead instances ({@link #pruneDead()}).
     */
    public void heartbeat() {
        beat();
        pruneDead();
    }

    /**
     * Renews this instance's heartbeat, writing the row again if another instance pruned it: one
     * statement, two after such a prune.
     */
    public void beat() {
        int updated = jdbc.update(sql.heartbeat().sql(), name);
        if (updated == 0) {
            // pruned while this process ran (it was silent for ten leases): its own row again, no watch
            dialect.insertIfAbsent(jdbc, sql.register().sql(), name);
        }
    }

    /**
     * Asks the database for nothing but an answer ({@code SELECT 1}, the same on every supported
     * database): the heartbeat's check between beats while someone watches the database's reach.
     */
    public void check() {
        jdbc.queryForObject("SELECT 1", Integer.class);
    }

    /**
     * {@link #beat()} with the database's time read back by the same statement as a measurement of
     * {@code clock}, where the dialect allows (PostgreSQL); returns whether it measured. Elsewhere
     * it only beats and returns false: the caller measures the clock on its own.
     */
    public boolean beatMeasuring(DatabaseClock clock) {
        return beatMeasuring(clock, null);
    }

    /**
     * As {@link #beatMeasuring(DatabaseClock)}, the statement carrying {@code ride} where the dialect
     * lets it ({@link JdbcDialect#returningNowWith}); elsewhere, or when null, the ride is not read.
     */
    public boolean beatMeasuring(DatabaseClock clock, @Nullable BeatRide ride) {
        Statement returning = sql.heartbeatReturningNow();
        if (returning == null) {
            beat();
            return false;
        }
        BeatRide carried = live.added(ride);
        String carrying = carried == null
                ? null
                : dialect.returningNowWith(sql.heartbeat().sql(), carried.columns());
        boolean measured;
        if (carrying != null) {
            List<Object> binds = new ArrayList<>();
            binds.add(name);
            binds.addAll(carried.binds());
            measured = clock.measure(carrying, binds, carried.reader());
        } else {
            measured = clock.measure(returning.sql(), name);
        }
        if (!measured) {
            // pruned while this process ran (it was silent for ten leases): its own row again, no watch
            dialect.insertIfAbsent(jdbc, sql.register().sql(), name);
            return false;
        }
        return true;
    }

    /**
     * Has each heartbeat that can (see {@link #readsLiveInstances()}) also read the names of the
     * instances alive (heartbeat younger than the lease), this one's included, and hand them to
     * {@code watcher} on the heartbeat's thread: at no statement of its own. Set once, before the
     * heartbeat starts.
     */
    public void watchLiveInstances(Consumer<List<String>> watcher) {
        live.watch(watcher);
    }

    /**
     * Whether a watcher of the live instances is set and the heartbeat can carry their read
     * (PostgreSQL: {@link JdbcDialect#returningNowWith} and {@link JdbcDialect#arrayOf}).
     */
    public boolean readsLiveInstances() {
        return live.watched()
                && sql.heartbeatReturningNow() != null
                && dialect.returningNowWith(sql.heartbeat().sql(), "1") != null;
    }

    /** Removes the rows of instances dead for {@link LeaseRule#pruneAfter} (ten leases); returns how many. */
    public int pruneDead() {
        return jdbc.update(sql.pruneDead().sql(), -LeaseRule.pruneAfter(lease).toMillis());
    }

    /**
     * Returns how often this instance beats, as given at construction: a row left under its name
     * is watched for {@value LeaseRule#WATCHED_BEATS} of them, and the {@link ClusterHeartbeat}
     * beats at this pace.
     */
    public Duration beatInterval() {
        return beatInterval;
    }

    /** Removes this instance's row, at graceful shutdown. */
    public void deregister() {
        jdbc.update(sql.deregister().sql(), name);
        ownsRow = false;
    }

    /** Returns the SQL of the instances table, whose liveness condition other tables' SQL uses. */
    public InstanceSql sql() {
        return sql;
    }

    /**
     * Returns the bind value of {@link InstanceSql#isDead(String)}: {@link LeaseRule#takeOverAfter}
     * (the lease), back from now.
     */
    public long deadAfterMillisParameter() {
        return -LeaseRule.takeOverAfter(lease).toMillis();
    }

    /** Returns the heartbeat of an instance as the database recorded it, or null if it has no row. */
    public @Nullable Instant heartbeatOf(String instanceName) {
        return jdbc.query(
                sql.heartbeatOf().sql(),
                rs -> rs.next() ? dialect.readInstant(rs, "heartbeat_at") : null,
                instanceName);
    }

    /**
     * Marks this instance's row as leaving, as a graceful stop begins: the others no longer count on
     * it to run a fire ({@link #othersStaying()}). A restart under this name clears the mark.
     */
    public void markLeaving() {
        jdbc.update(sql.markLeaving().sql(), name);
    }

    /** Returns whether an instance other than this one is alive and not leaving (it may run a fire). */
    public boolean othersStaying() {
        Long staying = jdbc.queryForObject(sql.othersStaying().sql(), Long.class, name, deadAfterMillisParameter());
        return staying == null || staying > 0;
    }

    /** An instance as its row stands: name, start and last heartbeat on the database's clock. */
    public record Registration(
            String name,
            @Nullable Instant startedAt,
            @Nullable Instant heartbeatAt) {}

    /** Returns every instance with a row, live or not yet pruned, by name: for the dashboard. */
    public List<Registration> all() {
        return jdbc.query(
                sql.all().sql(),
                (rs, row) -> new Registration(
                        rs.getString("instance_name"),
                        dialect.readInstant(rs, "started_at"),
                        dialect.readInstant(rs, "heartbeat_at")));
    }

    @Override
    public String toString() {
        return "ClusterInstance[" + name + "]";
    }
}
