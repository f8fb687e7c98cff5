package io.timedjobs.benchmarks.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/** How IDLE-LOAD counts: one statement per execute call, one commit per commit or auto-committed statement. */
class CountingDataSourceTest {

    @Test
    void shouldCountStatementsAndCommitsAlikeForEveryPeer() throws Exception {
        AtomicBoolean autoCommit = new AtomicBoolean(true);
        CountingDataSource counting = new CountingDataSource(fakeDataSource(autoCommit));

        try (Connection connection = counting.dataSource().getConnection()) {
            try (PreparedStatement statement = connection.prepareStatement("UPDATE t SET c = 1")) {
                statement.executeUpdate();
            }
            connection.setAutoCommit(false);
            try (Statement statement = connection.createStatement()) {
                statement.execute("SELECT 1");
                statement.executeQuery("SELECT 2");
            }
            connection.commit();
        }

        assertThat(counting.statements()).isEqualTo(3);
        assertThat(counting.commits()).as("one auto-committed, one explicit").isEqualTo(2);
    }

    /** A data source whose connections and statements do nothing but remember auto-commit. */
    private static DataSource fakeDataSource(AtomicBoolean autoCommit) {
        Statement statement = fake(PreparedStatement.class, (name, args) -> null);
        Connection connection = fake(Connection.class, (name, args) -> switch (name) {
            case "getAutoCommit" -> autoCommit.get();
            case "setAutoCommit" -> {
                autoCommit.set((Boolean) args[0]);
                yield null;
            }
            case "prepareStatement", "createStatement" -> statement;
            default -> null;
        });
        return fake(DataSource.class, (name, args) -> name.equals("getConnection") ? connection : null);
    }

    private interface Answer {
        Object answer(String name, Object[] args);
    }

    @SuppressWarnings("unchecked")
    private static <T> T fake(Class<T> type, Answer answer) {
        return (T) Proxy.newProxyInstance(
                CountingDataSourceTest.class.getClassLoader(), new Class<?>[] {type}, (proxy, method, args) -> {
                    Object result = answer.answer(method.getName(), args);
                    if (result == null && method.getReturnType() == boolean.class) {
                        return false;
                    }
                    if (result == null && method.getReturnType() == int.class) {
                        return 0;
                    }
                    return result;
                });
    }
}
