package io.timedjobs.scheduler.jdbc.database;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.testsupport.TestDatabases;
import io.timedjobs.scheduler.testsupport.TestDelays;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.datasource.DelegatingDataSource;

class BoundedDataSourceTest {

    /**
     * A pool that hands out its connection only after the caller's bound: the caller gives up at
     * the bound, and the connection, when it comes, is closed at once instead of leaking.
     */
    @Test
    void shouldGiveUpAtTheBoundAndCloseTheLateConnection() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        AtomicReference<Connection> handedOut = new AtomicReference<>();
        DataSource slow = new DelegatingDataSource(TestDatabases.newH2()) {
            @Override
            public Connection getConnection() throws SQLException {
                try {
                    release.await(TestDelays.LONG.toMillis(), TimeUnit.MILLISECONDS);
                } catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
                Connection connection = super.getConnection();
                handedOut.set(connection);
                return connection;
            }
        };
        BoundedDataSource bounded = new BoundedDataSource(slow, Duration.ofMillis(200));

        long start = System.nanoTime();
        assertThatThrownBy(bounded::getConnection)
                .isInstanceOf(SQLTransientConnectionException.class)
                .hasMessageContaining("timed-jobs.cluster.database-timeout");
        Duration waited = Duration.ofNanos(System.nanoTime() - start);
        release.countDown();

        assertThat(waited).isGreaterThanOrEqualTo(Duration.ofMillis(200)).isLessThan(Duration.ofSeconds(2));
        await().atMost(TestDelays.LONG)
                .until(() -> handedOut.get() != null && handedOut.get().isClosed());
    }

    /** A connection in time works, and closing it restores its network timeout for the pool's next user. */
    @Test
    void shouldHandOutConnectionsInTimeAndCloseThemThrough() throws Exception {
        DataSource h2 = TestDatabases.newH2();
        BoundedDataSource bounded = new BoundedDataSource(h2, Duration.ofSeconds(2));
        try (Connection connection = bounded.getConnection()) {
            assertThat(connection.isValid(1)).isTrue();
            assertThat(connection.unwrap(Connection.class)).isNotNull();
        }
    }

    /** A bound that is not positive is refused, naming the key. */
    @Test
    void shouldRefuseABoundThatIsNotPositive() {
        assertThatThrownBy(() -> new BoundedDataSource(TestDatabases.newH2(), Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("timed-jobs.cluster.database-timeout must be positive");
    }
}
