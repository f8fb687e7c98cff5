package io.timedjobs.scheduler.jdbc.database;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcOperations;

/**
 * Not API: used by the auto-configuration, the clustered jobs, durable tasks and the dashboard.
 * Thread-safe: this instance's row in the instances table, and the reads of the others' rows. {@link #register()}, {@link
 * #heartbeat()} and {@link #deregister()} are called by one thread at a time (start-up, the poll
 * thread, shutdown); {@link #name()}, {@link #sql()} and the reads by any thread.
 *
 * <p>An instance is alive while its heartbeat is younger than the lease: claims and run leases
 * held by an instance that is not alive may be taken over by the others. Rows of instances dead for
 * ten leases are pruned by whoever beats next.
 */
public final class ClusterInstance {

    /** How many leases an instance row outlives its last heartbeat before it is pruned. */
    private static final int PRUNE_AFTER_LEASES = 10;

    private final JdbcOperations jdbc;
    private final JdbcDialect dialect;
    private final InstanceSql sql;
    private final String name;
    private final Duration lease;

    /**
     * Creates this instance's registry entry; nothing is written until {@link #register()}.
     *
     * @param name this instance's name, unique among the instances on the database; see {@link
     *     #defaultName()}
     * @param lease how long after its last heartbeat an instance counts as dead
     */
    public ClusterInstance(JdbcOperations jdbc, JdbcDialect dialect, TableNames tables, String name, Duration lease) {
        this.jdbc = Objects.requireNonNull(jdbc, "jdbc");
        this.dialect = Objects.requireNonNull(dialect, "dialect");
        this.sql = new InstanceSql(dialect, Objects.requireNonNull(tables, "tables"));
        this.name = checkName(name);
        Objects.requireNonNull(lease, "lease");
        if (lease.isNegative() || lease.isZero()) {
            throw new IllegalArgumentException("timed-jobs.cluster.lease must be positive, was " + lease);
        }
        this.lease = lease;
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
     * Writes this instance's row with start time and heartbeat on the database's clock. A row left
     * under the same name (a configured name, after a crash) is taken over.
     */
    public void register() {
        int inserted = dialect.insertIfAbsent(jdbc, sql.register(), name);
        if (inserted == 0) {
            jdbc.update(sql.restart(), name);
        }
    }

    /**
     * Renews this instance's heartbeat, writing the row again if another instance pruned it, and
     * prunes the rows of instances dead for ten leases.
     */
    public void heartbeat() {
        int updated = jdbc.update(sql.heartbeat(), name);
        if (updated == 0) {
            register();
        }
        jdbc.update(sql.pruneDead(), -lease.toMillis() * PRUNE_AFTER_LEASES);
    }

    /** Removes this instance's row, at graceful shutdown. */
    public void deregister() {
        jdbc.update(sql.deregister(), name);
    }

    /** Returns the SQL of the instances table, whose liveness condition other tables' SQL uses. */
    public InstanceSql sql() {
        return sql;
    }

    /** Returns the bind value of {@link InstanceSql#isDead(String)}: the lease, back from now. */
    public long deadAfterMillisParameter() {
        return -lease.toMillis();
    }

    /** Returns the heartbeat of an instance as the database recorded it, or null if it has no row. */
    public @Nullable Instant heartbeatOf(String instanceName) {
        return jdbc.query(
                sql.heartbeatOf(), rs -> rs.next() ? JdbcDialect.readInstant(rs, "heartbeat_at") : null, instanceName);
    }

    /** An instance as its row stands: name, start and last heartbeat on the database's clock. */
    public record Registration(
            String name,
            @Nullable Instant startedAt,
            @Nullable Instant heartbeatAt) {}

    /** Returns every instance with a row, live or not yet pruned, by name: for the dashboard. */
    public List<Registration> all() {
        return jdbc.query(
                sql.all(),
                (rs, row) -> new Registration(
                        rs.getString("instance_name"),
                        JdbcDialect.readInstant(rs, "started_at"),
                        JdbcDialect.readInstant(rs, "heartbeat_at")));
    }

    @Override
    public String toString() {
        return "ClusterInstance[" + name + "]";
    }
}
