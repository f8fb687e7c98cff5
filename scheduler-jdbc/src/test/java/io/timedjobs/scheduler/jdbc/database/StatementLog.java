package io.timedjobs.scheduler.jdbc.database;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;

/**
 * Test fixture; thread-safe. A {@link DataSource} in front of another that logs the SQL of every
 * statement its connections execute (one entry per {@code execute*} call), so that a test can say
 * which statements an instance sent and how many.
 */
public final class StatementLog {

    private final List<String> executed = new CopyOnWriteArrayList<>();
    private final DataSource dataSource;

    public StatementLog(DataSource target) {
        this.dataSource = proxy(
                DataSource.class,
                target,
                (method, args, result) -> result instanceof Connection connection ? connection(connection) : result);
    }

    /** The logging data source. */
    public DataSource dataSource() {
        return dataSource;
    }

    /** Every statement executed since the last {@link #clear()}, in order. */
    public List<String> executed() {
        return List.copyOf(executed);
    }

    /** The statements executed since the last clear that contain {@code fragment}, ignoring case. */
    public List<String> containing(String fragment) {
        String lower = fragment.toLowerCase(Locale.ROOT);
        return executed.stream()
                .filter(sql -> sql.toLowerCase(Locale.ROOT).contains(lower))
                .toList();
    }

    /** Forgets what was logged. */
    public void clear() {
        executed.clear();
    }

    private Connection connection(Connection connection) {
        return proxy(Connection.class, connection, (method, args, result) -> {
            if (result instanceof PreparedStatement prepared && args != null && args[0] instanceof String sql) {
                return statement(PreparedStatement.class, prepared, sql);
            }
            if (result instanceof Statement statement) {
                return statement(Statement.class, statement, null);
            }
            return result;
        });
    }

    @SuppressWarnings("unchecked")
    private <T extends Statement> T statement(Class<T> type, T statement, String prepared) {
        return (T) Proxy.newProxyInstance(StatementLog.class.getClassLoader(), new Class<?>[] {type}, (p, m, a) -> {
            switch (m.getName()) {
                case "equals":
                    return p == a[0];
                case "hashCode":
                    return System.identityHashCode(p);
                default:
                    break;
            }
            if (m.getName().startsWith("execute")) {
                executed.add(
                        a != null && a.length > 0 && a[0] instanceof String given ? given : String.valueOf(prepared));
            }
            try {
                return m.invoke(statement, a);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        });
    }

    private interface After {
        Object apply(Method method, Object[] args, Object result) throws Exception;
    }

    @SuppressWarnings("unchecked")
    private <T> T proxy(Class<T> type, T target, After after) {
        return (T) Proxy.newProxyInstance(StatementLog.class.getClassLoader(), new Class<?>[] {type}, (p, m, a) -> {
            switch (m.getName()) {
                case "equals":
                    return p == a[0];
                case "hashCode":
                    return System.identityHashCode(p);
                default:
                    break;
            }
            Object result;
            try {
                result = m.invoke(target, a);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
            return after.apply(m, a, result);
        });
    }
}
