package io.timedjobs.benchmarks.cluster;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;
import javax.sql.DataSource;

/**
 * Thread-safe: a {@link DataSource} in front of another that counts, for every peer alike, the
 * statements its connections send and the transactions they commit. A statement is a call of
 * {@code execute}, {@code executeQuery}, {@code executeUpdate} or {@code executeLargeUpdate}, or
 * one per batch for {@code executeBatch}; a commit is a call of {@code commit()}, or a statement
 * sent while the connection is in auto-commit (which the database commits on its own). Built on
 * {@link Proxy} so that it follows the JDBC interfaces of any driver and pool.
 */
final class CountingDataSource {

    private static final Set<String> EXECUTES = Set.of(
            "execute", "executeQuery", "executeUpdate", "executeLargeUpdate", "executeBatch", "executeLargeBatch");

    private final LongAdder statements = new LongAdder();
    private final LongAdder commits = new LongAdder();
    private final DataSource proxy;

    CountingDataSource(DataSource target) {
        this.proxy = wrap(DataSource.class, target, (real, method, args) -> {
            Object result = invoke(real, method, args);
            return result instanceof Connection connection ? connection(connection) : result;
        });
    }

    /** The counting data source to hand to a peer. */
    DataSource dataSource() {
        return proxy;
    }

    /** Statements sent so far. */
    long statements() {
        return statements.sum();
    }

    /** Transactions committed so far, explicit or auto-commit. */
    long commits() {
        return commits.sum();
    }

    private Connection connection(Connection connection) {
        return wrap(Connection.class, connection, (real, method, args) -> {
            if (method.getName().equals("commit")) {
                commits.increment();
            }
            Object result = invoke(real, method, args);
            return result instanceof Statement statement ? statement(statement, connection) : result;
        });
    }

    private Statement statement(Statement statement, Connection connection) {
        Class<?> type = statement instanceof java.sql.CallableStatement
                ? java.sql.CallableStatement.class
                : statement instanceof java.sql.PreparedStatement ? java.sql.PreparedStatement.class : Statement.class;
        return (Statement) wrap(type, statement, (real, method, args) -> {
            if (EXECUTES.contains(method.getName())) {
                statements.increment();
                if (connection.getAutoCommit()) {
                    commits.increment();
                }
            }
            Object result = invoke(real, method, args);
            return method.getName().equals("getConnection") ? proxyOf(connection) : result;
        });
    }

    /** The statement's connection as the caller saw it: the counting proxy, not the pool's. */
    private Object proxyOf(Connection connection) {
        return connection(connection);
    }

    private interface Handler {
        Object handle(Object real, Method method, Object[] args) throws Throwable;
    }

    @SuppressWarnings("unchecked")
    private static <T> T wrap(Class<?> type, T real, Handler handler) {
        InvocationHandler invocation = (proxy, method, args) -> {
            switch (method.getName()) {
                case "equals":
                    return proxy == args[0];
                case "hashCode":
                    return System.identityHashCode(proxy);
                default:
                    break;
            }
            if (method.getName().equals("unwrap") || method.getName().equals("isWrapperFor")) {
                return invoke(real, method, args);
            }
            return handler.handle(real, method, args);
        };
        return (T) Proxy.newProxyInstance(CountingDataSource.class.getClassLoader(), new Class<?>[] {type}, invocation);
    }

    private static Object invoke(Object real, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(real, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
