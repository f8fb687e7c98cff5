package io.timedjobs.scheduler.autoconfigure;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import javax.sql.DataSource;

/**
 * Thread-safe: a {@link DataSource} in front of another that counts the statements sent while a
 * thread runs {@link #counting}, on that thread only, so that what the background threads of a
 * running application send (heartbeats, polls, fires) is left out. A statement is one call of an
 * {@code execute...} method of a {@link Statement} (a prepared or callable one included).
 */
final class StatementCounter {

    private static final Set<String> EXECUTES = Set.of(
            "execute", "executeQuery", "executeUpdate", "executeLargeUpdate", "executeBatch", "executeLargeBatch");

    private final ThreadLocal<AtomicLong> counted = new ThreadLocal<>();
    private final DataSource dataSource;

    StatementCounter(DataSource target) {
        this.dataSource = proxy(
                DataSource.class,
                target,
                result -> result instanceof Connection connection
                        ? proxy(Connection.class, connection, this::statement)
                        : result);
    }

    /** The counting data source, to give the application. */
    DataSource dataSource() {
        return dataSource;
    }

    /** Runs the work on this thread and returns the statements it sent. */
    long counting(Supplier<?> work) {
        AtomicLong count = new AtomicLong();
        counted.set(count);
        try {
            work.get();
        } finally {
            counted.remove();
        }
        return count.get();
    }

    private Object statement(Object result) {
        if (!(result instanceof Statement statement)) {
            return result;
        }
        Class<?> type = result instanceof java.sql.CallableStatement
                ? java.sql.CallableStatement.class
                : result instanceof java.sql.PreparedStatement ? java.sql.PreparedStatement.class : Statement.class;
        InvocationHandler handler = (self, method, args) -> {
            AtomicLong count = counted.get();
            if (count != null && EXECUTES.contains(method.getName())) {
                count.incrementAndGet();
            }
            return call(statement, method, args);
        };
        return Proxy.newProxyInstance(StatementCounter.class.getClassLoader(), new Class<?>[] {type}, handler);
    }

    @FunctionalInterface
    private interface Wrap {
        Object apply(Object result);
    }

    private static <T> T proxy(Class<T> type, T target, Wrap wrap) {
        InvocationHandler handler = (self, method, args) -> wrap.apply(call(target, method, args));
        return type.cast(
                Proxy.newProxyInstance(StatementCounter.class.getClassLoader(), new Class<?>[] {type}, handler));
    }

    private static Object call(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
