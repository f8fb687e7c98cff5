package io.timedjobs.scheduler.jdbc.cluster;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLTransientConnectionException;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * Test fixture; thread-safe. A data source in front of another whose connections refuse to prepare
 * the next statements that contain a given fragment, as a database that goes away for exactly
 * those statements would; every other statement goes through.
 */
final class FailingStatements extends DelegatingDataSource {

    private volatile @Nullable String fragment;
    private final AtomicInteger left = new AtomicInteger();

    FailingStatements(DataSource target) {
        super(target);
    }

    /** The next {@code times} statements containing {@code part} (ignoring case) fail. */
    void failNext(String part, int times) {
        fragment = part.toLowerCase(Locale.ROOT);
        left.set(times);
    }

    /** How many of the failures asked for are still to come. */
    int left() {
        return left.get();
    }

    @Override
    public Connection getConnection() throws java.sql.SQLException {
        return wrap(super.getConnection());
    }

    @Override
    public Connection getConnection(String username, String password) throws java.sql.SQLException {
        return wrap(super.getConnection(username, password));
    }

    private Connection wrap(Connection connection) {
        return (Connection) Proxy.newProxyInstance(
                FailingStatements.class.getClassLoader(), new Class<?>[] {Connection.class}, (p, m, a) -> {
                    switch (m.getName()) {
                        case "equals":
                            return p == a[0];
                        case "hashCode":
                            return System.identityHashCode(p);
                        default:
                            break;
                    }
                    String part = fragment;
                    if (m.getName().startsWith("prepare")
                            && part != null
                            && a != null
                            && a[0] instanceof String sql
                            && sql.toLowerCase(Locale.ROOT).contains(part)
                            && left.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                        throw new SQLTransientConnectionException("statement refused by the test: " + sql);
                    }
                    try {
                        return m.invoke(connection, a);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}
