package io.timedjobs.scheduler.jdbc.durable;

import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.TableNames;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Test main, run in a JVM of its own by {@link DurableTaskKillTest}: one instance that claims the
 * durable tasks of handler "mail", says how many it holds on standard output, and runs until it is
 * killed. Arguments: JDBC URL, instance name, number of claims to wait for.
 */
public final class DurableTaskChildInstance {

    private DurableTaskChildInstance() {}

    public static void main(String[] args) throws Exception {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL(args[0]);
        int expected = Integer.parseInt(args[2]);
        DurableTaskSettings settings = new DurableTaskSettings(
                Duration.ofSeconds(30),
                Duration.ofMillis(100),
                Duration.ofSeconds(1),
                3,
                Duration.ofMillis(50),
                Duration.ofMillis(200),
                200,
                2);
        DurableTaskEngine engine = DurableTaskEngine.builder(ClusterDatabase.of(dataSource, TableNames.defaults()))
                .instanceName(args[1])
                .handler("mail", new RecordingHandler())
                .settings(settings)
                .build();
        engine.start();
        while (engine.queuedCount() < expected) {
            Thread.onSpinWait();
        }
        System.out.println("CLAIMED " + engine.queuedCount());
        System.out.flush();
        new CountDownLatch(1).await(); // until SIGKILL
    }
}
