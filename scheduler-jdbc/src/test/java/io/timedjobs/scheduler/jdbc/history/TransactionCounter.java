package io.timedjobs.scheduler.jdbc.history;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * Test fixture; thread-safe. A data source that counts the transactions its connections commit:
 * each explicit commit, and each statement run in auto-commit mode (its own transaction).
 */
public final class TransactionCounter extends DelegatingDataSource {

    private final AtomicLong transactions = new AtomicLong();

    public TransactionCounter(DataSource target) {
        super(target);
    }

    /** Returns the transactions committed so far. */
    public long transactions() {
        return transactions.get();
    }

    @Override
    public Connection getConnection() throws SQLException {
        return connection(super.getConnection());
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return connection(super.getConnection(username, password));
    }

    private Connection connection(Connection real) {
        InvocationHandler handler = (proxy, method, args) -> {
            if (method.getName().equals("commit")) {
                transactions.incrementAndGet();
            }
            Object result = invoke(real, method, args);
            if (result instanceof Statement statement) {
                return statement(statement, real, method.getReturnType());
            }
            return result;
        };
        return (Connection)
                Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, handler);
    }

    private Object statement(Statement real, Connection connection, Class<?> type) {
        InvocationHandler handler = (proxy, method, args) -> {
            if (method.getName().startsWith("execute") && connection.getAutoCommit()) {
                transactions.incrementAndGet();
            }
            return invoke(real, method, args);
        };
        return Proxy.newProxyInstance(Statement.class.getClassLoader(), new Class<?>[] {type}, handler);
    }

    private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
