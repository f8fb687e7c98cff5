package io.timedjobs.scheduler.jdbc.durable;

import io.timedjobs.scheduler.Ticker;
import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.ClusterHeartbeat;
import io.timedjobs.scheduler.jdbc.database.ClusterInstance;
import io.timedjobs.scheduler.jdbc.database.DatabaseClock;
import io.timedjobs.scheduler.jdbc.database.OutageLog;
import io.timedjobs.scheduler.jdbc.database.Sleeper;
import io.timedjobs.scheduler.jdbc.database.TableNames;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * Test main, run in a JVM of its own by {@link DurableTaskKillTest}: one instance that claims the
 * durable tasks of handler "mail", says how many it holds on standard output once it holds them all,
 * and runs until it is killed. Arguments: JDBC URL, instance name, number of claims to wait for, and
 * optionally the poll interval in milliseconds (100 by default). When start-up fails (another live
 * process has the name) it prints the failure and exits with status 1.
 */
public final class DurableTaskChildInstance {

    private DurableTaskChildInstance() {}

    public static void main(String[] args) throws Exception {
        DataSource dataSource = new DriverManagerDataSource(args[0]);
        int expected = Integer.parseInt(args[2]);
        Duration pollInterval = Duration.ofMillis(args.length > 3 ? Long.parseLong(args[3]) : 100);
        DurableTaskSettings settings = new DurableTaskSettings(
                Duration.ofSeconds(30),
                pollInterval,
                Duration.ofSeconds(1),
                3,
                Duration.ofMillis(50),
                Duration.ofMillis(200),
                200,
                2);
        ClusterDatabase database = ClusterDatabase.of(dataSource, TableNames.defaults());
        DatabaseClock clock =
                new DatabaseClock(database.jdbc(), database.dialect(), Clock.systemUTC(), Ticker.system());
        ClusterHeartbeat heartbeat = new ClusterHeartbeat(
                new ClusterInstance(
                        database.jdbc(),
                        database.dialect(),
                        database.tables(),
                        args[1],
                        settings.lease(),
                        settings.pollInterval(),
                        Sleeper.system()),
                clock,
                new OutageLog(ClusterHeartbeat.class, "the heartbeat of instance " + args[1]),
                settings.pollInterval());
        DurableTaskEngine engine = DurableTaskEngine.builder(database)
                .handler("mail", new RecordingHandler())
                .settings(settings)
                .heartbeat(heartbeat, clock)
                .build();
        // Claims land on the heartbeat's thread, in the engine's poll action; this one runs after it.
        CountDownLatch claimedAll = new CountDownLatch(1);
        heartbeat.addPollAction(() -> {
            if (engine.queuedCount() >= expected) {
                claimedAll.countDown();
            }
        });
        engine.start();
        try {
            heartbeat.start();
        } catch (RuntimeException e) {
            System.out.println("FAILED " + e);
            System.out.flush();
            System.exit(1);
        }
        claimedAll.await();
        System.out.println("CLAIMED " + engine.queuedCount());
        System.out.flush();
        new CountDownLatch(1).await(); // until SIGKILL
    }
}
