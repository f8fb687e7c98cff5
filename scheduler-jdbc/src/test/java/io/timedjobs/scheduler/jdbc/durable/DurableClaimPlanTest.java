package io.timedjobs.scheduler.jdbc.durable;

import static org.assertj.core.api.Assertions.assertThat;

import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.PreparedStatementSetter;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

/**
 * The claims keep their cost flat however many tasks are pending: on a PostgreSQL table large
 * enough (200,000 rows) that the planner weighs an index against a sequential scan, the plans of
 * the due claim and the rescue claim read the (state, due_at) index, not the whole table. Without
 * that index the same check sees the sequential scan, which proves it can fail.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DurableClaimPlanTest {

    private static final int PENDING = 200_000;
    private static final String INDEX = "timed_jobs_tasks_state_due";
    private static final String PRIMARY_KEY = "timed_jobs_tasks_pkey";

    private DataSource dataSource;
    private ClusterDatabase database;

    @BeforeAll
    void fill() {
        dataSource = TestDatabases.newPostgres();
        database = DurableTestSupport.database(dataSource);
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        // most tasks wait days ahead, as in a system with a long backlog; a few are due, a few claimed
        jdbc.update("INSERT INTO timed_jobs_tasks (handler, task_key, payload, schedule, fire_at, due_at, state,"
                + " attempts, claimed_by, claim_version, lease_until, created_at)"
                + " SELECT CASE WHEN i % 2 = 0 THEN 'mail' ELSE 'sms' END, 'k' || i, NULL, NULL,"
                + " now() + (i || ' seconds')::interval, now() + (i || ' seconds')::interval,"
                + " CASE WHEN i % 10000 = 0 THEN 'CLAIMED' ELSE 'PENDING' END, 0,"
                + " CASE WHEN i % 10000 = 0 THEN 'gone' END, 0,"
                + " CASE WHEN i % 10000 = 0 THEN now() - interval '1 minute' END, now()"
                + " FROM generate_series(1, " + PENDING + ") AS i");
        jdbc.update("INSERT INTO timed_jobs_tasks (handler, task_key, fire_at, due_at, state, attempts, claim_version,"
                + " created_at) SELECT 'mail', 'due' || i, now(), now(), 'PENDING', 0, 0, now()"
                + " FROM generate_series(1, 50) AS i");
        jdbc.execute("ANALYZE timed_jobs_tasks");
    }

    /**
     * The due claim reads the index, bounded by the due time: the scan ends at the first task not
     * due. Bounded by the state alone (a due time the planner cannot hold fixed, as {@code
     * clock_timestamp()}), it would read every pending entry whenever fewer tasks are due than the
     * batch, as at each poll of a quiet system: 200,000 here, a claim slower with every task pending.
     */
    @Test
    void shouldClaimDueTasksThroughTheIndex() {
        String plan = explain(store ->
                store.claimDue("me", Duration.ofSeconds(1), Duration.ofSeconds(30), List.of("mail", "sms"), 200));

        assertThat(plan).as(plan).contains(INDEX, PRIMARY_KEY).doesNotContain("Seq Scan on timed_jobs_tasks");
        assertThat(indexConditions(plan)).as(plan).anyMatch(condition -> condition.contains("due_at"));
    }

    /** The check for due tasks of handlers this instance lacks is bounded by the due time as well. */
    @Test
    void shouldLookForForeignHandlersThroughTheIndexUpToNow() {
        String plan = explain(store -> store.foreignHandlersDue(List.of("mail")));

        assertThat(plan).as(plan).contains(INDEX).doesNotContain("Seq Scan on timed_jobs_tasks");
        assertThat(indexConditions(plan)).as(plan).anyMatch(condition -> condition.contains("due_at"));
    }

    private static List<String> indexConditions(String plan) {
        return plan.lines().filter(line -> line.contains("Index Cond")).toList();
    }

    /**
     * The same with the plan the server keeps for a statement it has prepared (the driver prepares
     * one on the server after a few runs, and the server may then plan it once for any binds): the
     * row limit and the due time are then unknown to the planner, and no claim may read the whole
     * table. Each statement is prepared on the server and its generic plan explained, as the server
     * would run it.
     */
    @Test
    void shouldClaimThroughTheIndexesWithGenericPlans() throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            JdbcTemplate jdbc = new JdbcTemplate(new SingleConnectionDataSource(connection, true));
            String due = explainGeneric(
                    jdbc,
                    store -> store.claimDue(
                            "me", Duration.ofSeconds(1), Duration.ofSeconds(30), List.of("mail", "sms"), 200));
            assertThat(due).as(due).contains(INDEX, PRIMARY_KEY).doesNotContain("Seq Scan on timed_jobs_tasks");
            assertThat(indexConditions(due)).as(due).anyMatch(condition -> condition.contains("due_at"));

            String rescue = explainGeneric(
                    jdbc, store -> store.claimExpired("me", Duration.ofSeconds(30), List.of("mail", "sms"), 200));
            assertThat(rescue).as(rescue).contains(INDEX, PRIMARY_KEY).doesNotContain("Seq Scan on timed_jobs_tasks");

            String foreign = explainGeneric(jdbc, store -> store.foreignHandlersDue(List.of("mail")));
            assertThat(foreign).as(foreign).contains(INDEX).doesNotContain("Seq Scan on timed_jobs_tasks");
        }
    }

    /**
     * The generic plan is what the check above reads: the plan of the statement prepared on the
     * server shows the handlers' names as a parameter, where a plain {@code EXPLAIN} with binds shows
     * their values, planned for them.
     */
    @Test
    void shouldExplainThePlanWithoutTheBindsValues() throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            JdbcTemplate jdbc = new JdbcTemplate(new SingleConnectionDataSource(connection, true));
            Consumer<DurableTaskStore> claim =
                    store -> store.claimExpired("me", Duration.ofSeconds(30), List.of("mail", "sms"), 200);
            assertThat(explainGeneric(jdbc, claim)).doesNotContain("{mail,sms}");
            assertThat(explain(jdbc, claim)).contains("{mail,sms}");
        }
    }

    @Test
    void shouldRescueExpiredClaimsThroughTheIndex() {
        String plan = explain(store -> store.claimExpired("me", Duration.ofSeconds(30), List.of("mail", "sms"), 200));

        assertThat(plan).as(plan).contains(INDEX, PRIMARY_KEY).doesNotContain("Seq Scan on timed_jobs_tasks");
    }

    /**
     * A group's start and a group's completions (one statement each) find their rows through the
     * primary key while the instance holds thousands of claims the statistics do not know of: the
     * planner would otherwise read all of them through the claimed_by or the (state, due_at) index
     * for each group (a join with the unnested arrays could even read the whole table), as a drain's
     * first groups did; with the plan for the binds' values and with the generic plan alike. The ids
     * and versions are typed arrays, not text cast for each row read ({@code ::cstring}), which once
     * made a group's completions run for seconds.
     */
    @Test
    void shouldStartAndCompleteAGroupThroughThePrimaryKey() throws SQLException {
        List<ClaimedTask> group = new ArrayList<>();
        for (long id = 1; id <= 8; id++) {
            group.add(new ClaimedTask(
                    id, "mail", "k" + id, null, null, java.time.Instant.now(), java.time.Instant.now(), 0, 0, null));
        }
        try (Connection connection = dataSource.getConnection()) {
            // as in a drain: this instance holds thousands of claims, more than the statistics know
            connection.setAutoCommit(false);
            try {
                JdbcTemplate jdbc = new JdbcTemplate(new SingleConnectionDataSource(connection, true));
                jdbc.update("UPDATE timed_jobs_tasks SET state = 'CLAIMED', claimed_by = 'me' WHERE id % 40 = 0");
                Consumer<DurableTaskStore> start = store -> store.startAll(group, "me", Duration.ofSeconds(30));
                Consumer<DurableTaskStore> complete = store -> store.completeOnceAll(group);
                for (Consumer<DurableTaskStore> statement : List.of(start, complete)) {
                    String custom = explain(jdbc, statement);
                    assertThat(custom).as(custom).doesNotContain("cstring");
                    for (String plan : List.of(custom, explainGeneric(jdbc, statement))) {
                        assertThat(plan)
                                .as(plan)
                                .contains("Index Scan using timed_jobs_tasks_pkey")
                                .doesNotContain("Seq Scan on timed_jobs_tasks");
                    }
                }
            } finally {
                connection.rollback();
            }
        }
    }

    /** The check above fails when the index is missing: the planner then reads the whole table. */
    @Test
    void shouldSeeTheWholeTableReadWithoutTheIndex() throws SQLException {
        // the index is dropped in a transaction that rolls back: PostgreSQL's DDL is transactional
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            try {
                JdbcTemplate jdbc = new JdbcTemplate(new SingleConnectionDataSource(connection, true));
                jdbc.execute("DROP INDEX " + INDEX);
                String plan = explain(
                        jdbc,
                        store -> store.claimDue(
                                "me", Duration.ofSeconds(1), Duration.ofSeconds(30), List.of("mail", "sms"), 200));
                assertThat(plan).as(plan).doesNotContain(INDEX).contains("Seq Scan on timed_jobs_tasks");
            } finally {
                connection.rollback();
            }
        }
    }

    /**
     * As {@link #explain(JdbcTemplate, Consumer)}, with the generic plan: each statement is prepared
     * on the server ({@code PREPARE}) and explained as executed with its binds ({@code EXPLAIN
     * EXECUTE}) while the server is told to plan it once for any binds. {@code jdbc} must hold one
     * connection.
     */
    private String explainGeneric(JdbcTemplate jdbc, Consumer<DurableTaskStore> claim) {
        List<String> plan = new ArrayList<>();
        JdbcTemplate explaining = new JdbcTemplate(jdbc.getDataSource()) {
            @Override
            public <T> List<T> query(String sql, PreparedStatementSetter binds, RowMapper<T> rows) {
                StringBuilder numbered = new StringBuilder();
                int count = 0;
                for (char c : sql.toCharArray()) {
                    numbered.append(c == '?' ? "$" + ++count : String.valueOf(c));
                }
                jdbc.execute("PREPARE claim_plan AS " + numbered);
                try {
                    // EXECUTE takes its arguments as literals: the binds are recorded, then written out
                    String[] literals = new String[count];
                    java.util.Arrays.fill(literals, "NULL");
                    binds.setValues(recorder(literals));
                    plan.addAll(super.queryForList(
                            "EXPLAIN EXECUTE claim_plan(" + String.join(", ", literals) + ")", String.class));
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                } finally {
                    try {
                        jdbc.execute("DEALLOCATE claim_plan");
                    } catch (RuntimeException e) {
                        // the explain failed in a transaction, now aborted: its error is the one to see
                    }
                }
                return List.of();
            }
        };
        jdbc.execute("SET plan_cache_mode = force_generic_plan");
        try {
            claim.accept(new DurableTaskStore(explaining, database.dialect(), database.tables()));
        } finally {
            jdbc.execute("RESET plan_cache_mode");
        }
        assertThat(plan).as("the claim ran one statement").isNotEmpty();
        return String.join("\n", plan);
    }

    /**
     * A statement that records each value bound to it as a literal of unknown type, which the server
     * casts to the prepared statement's parameter type; arrays, which its connection creates, as
     * their text.
     */
    private static java.sql.PreparedStatement recorder(String[] literals) {
        Connection arrays = proxy(Connection.class, (method, args) -> {
            String text = java.util.Arrays.stream((Object[]) args[1])
                    .map(String::valueOf)
                    .collect(java.util.stream.Collectors.joining(",", "{", "}"));
            return proxy(java.sql.Array.class, (called, none) -> text); // only its toString() is read
        });
        return proxy(java.sql.PreparedStatement.class, (method, args) -> {
            if (method.getName().equals("getConnection")) {
                return arrays;
            }
            Object value = method.getName().equals("setNull") ? null : args[1];
            literals[(Integer) args[0] - 1] =
                    value == null ? "NULL" : "'" + String.valueOf(value).replace("'", "''") + "'";
            return null;
        });
    }

    /** An implementation of {@code type} whose every method is {@code answer}. */
    private static <T> T proxy(
            Class<T> type, java.util.function.BiFunction<java.lang.reflect.Method, Object[], Object> answer) {
        return type.cast(java.lang.reflect.Proxy.newProxyInstance(
                DurableClaimPlanTest.class.getClassLoader(),
                new Class<?>[] {type},
                (proxy, method, args) -> answer.apply(method, args)));
    }

    private String explain(Consumer<DurableTaskStore> claim) {
        return explain(new JdbcTemplate(dataSource), claim);
    }

    /**
     * Runs {@code claim} on a store whose statements are explained instead of run, and returns the
     * plan. {@code jdbc} is used as given, so a caller may hold it in a transaction on one connection.
     */
    private String explain(JdbcTemplate jdbc, Consumer<DurableTaskStore> claim) {
        List<String> plan = new ArrayList<>();
        JdbcTemplate explaining = new JdbcTemplate(jdbc.getDataSource()) {
            @Override
            public <T> List<T> query(String sql, PreparedStatementSetter binds, RowMapper<T> rows) {
                plan.addAll(super.query("EXPLAIN " + sql, binds, (rs, row) -> rs.getString(1)));
                return List.of();
            }
        };
        claim.accept(new DurableTaskStore(explaining, database.dialect(), database.tables()));
        assertThat(plan).as("the claim ran one statement").isNotEmpty();
        return String.join("\n", plan);
    }
}
