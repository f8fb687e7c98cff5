package io.timedjobs.scheduler.jdbc.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.Ticker;
import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.ClusterInstance;
import io.timedjobs.scheduler.jdbc.database.DatabaseClock;
import io.timedjobs.scheduler.jdbc.database.OutageLog;
import io.timedjobs.scheduler.jdbc.database.TableNames;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.scheduling.support.SimpleTriggerContext;

/**
 * The end of a run written on a helper thread (every worker but one waited on the database as the
 * run ended), held back at a gate in front of the database: what the job and a stop do meanwhile.
 */
class SlowEndOfRunTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    /** Threads of the scheduler the job runs on: three calls in flight leave no room. */
    private static final int WORKERS = 4;

    private final CountDownLatch gate = new CountDownLatch(1);
    private final Queue<String> helperThreads = new ConcurrentLinkedQueue<>();
    private final SlowCalls calls = new SlowCalls("a");
    private final AtomicInteger runs = new AtomicInteger();
    private final List<Object> othersCalls = new ArrayList<>();

    private JobStore store;
    private JobStore other;
    private CronJob job;

    private void start(Runnable secondRun) {
        ClusterDatabase database =
                ClusterDatabase.of(gated(OncePerFireTest.createTables(TestDatabases.Kind.H2)), TableNames.defaults());
        store = new JobStore(database, instance(database, "a"));
        other = new JobStore(database, instance(database, "b"));
        DatabaseClock clock =
                new DatabaseClock(database.jdbc(), database.dialect(), Clock.systemUTC(), Ticker.system());
        clock.measure();
        JobContext context = new JobContext(
                store,
                clock,
                new ClusterJobStats(),
                new OutageLog(SlowEndOfRunTest.class, "slow end of run"),
                new JobContext.Timings(Duration.ofSeconds(1), Duration.ofMinutes(10), Duration.ofMinutes(1)),
                FireNotices.none(),
                calls);
        job = new CronJob(
                "job",
                () -> {
                    if (runs.incrementAndGet() == 1) {
                        // other jobs' calls take the room as this run ends: its end goes to a helper
                        for (int i = 0; i < WORKERS - 1; i++) {
                            othersCalls.add(calls.begin());
                        }
                    } else {
                        secondRun.run();
                    }
                },
                context,
                "* * * * * *",
                ZoneOffset.UTC);
        job.workers(WORKERS);
    }

    /**
     * A fire of the job on the same instance does not begin while the end of its last run is still
     * being written, so that late release never frees the next run's lease for another instance.
     */
    @Test
    void shouldNotRunTheNextFireWhileTheLastEndIsPending() throws Exception {
        List<JobStore.Lease> otherTook = new ArrayList<>();
        start(() -> {
            gate.countDown(); // the last run's end goes through now, if it is still pending
            await().atMost(WAIT).until(this::noCallInFlight);
            otherTook.add(other.acquireLease("job", Duration.ofMinutes(10)));
        });
        fire(); // its end waits at the gate, on a helper thread
        othersCalls.forEach(calls::end); // room again for the next fire's calls

        fire();
        gate.countDown();
        await().atMost(WAIT).until(() -> {
            if (runs.get() < 2) {
                fire();
            }
            return runs.get() == 2;
        });

        assertThat(otherTook)
                .as("the lease as another instance tried it during the second run")
                .containsExactly(JobStore.Lease.BUSY);
        assertThat(helperThreads).allMatch(name -> name.contains("-a-"), "helper thread named after the instance");
    }

    /** A graceful stop waits for the end of a run written on a helper thread before it lets go. */
    @Test
    void shouldWaitAtAStopForTheEndOfARunWrittenOnAHelper() throws Exception {
        start(() -> {});
        fire(); // its end waits at the gate, on a helper thread
        othersCalls.forEach(calls::end);

        assertThat(store.departure()
                        .leave(Duration.ofMillis(200), () -> store.heldLeases().isEmpty()))
                .as("stop while the end of the run is pending")
                .isFalse();
        gate.countDown();
        assertThat(store.departure().leave(WAIT, () -> store.heldLeases().isEmpty()))
                .as("stop once the end is written")
                .isTrue();
        assertThat(other.acquireLease("job", Duration.ofMinutes(10)))
                .as("the lease the run gave back")
                .isEqualTo(JobStore.Lease.TAKEN);
        calls.stop();
    }

    /** Whether no database call is in flight: none then even for a scheduler of one worker. */
    private boolean noCallInFlight() {
        Object call = calls.beginIfRoom(1);
        if (call != null) {
            calls.end(call);
        }
        return call != null;
    }

    private void fire() {
        job.nextExecution(new SimpleTriggerContext());
        job.run();
    }

    /**
     * The data source, with every statement prepared on a helper thread held until the gate opens
     * (connections are opened on threads of their own, statements on the caller's).
     */
    private DataSource gated(DataSource target) {
        return (DataSource) Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                    Object result = invoke(method, target, args);
                    if (!(result instanceof Connection connection)) {
                        return result;
                    }
                    return Proxy.newProxyInstance(
                            getClass().getClassLoader(), new Class<?>[] {Connection.class}, (p, m, a) -> {
                                String thread = Thread.currentThread().getName();
                                if (thread.startsWith("timed-jobs-run-end-")
                                        && m.getName().startsWith("prepare")) {
                                    helperThreads.add(thread);
                                    if (!gate.await(WAIT.toSeconds(), TimeUnit.SECONDS)) {
                                        throw new IllegalStateException("gate never opened");
                                    }
                                }
                                return invoke(m, connection, a);
                            });
                });
    }

    private static Object invoke(java.lang.reflect.Method method, Object target, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException ex) {
            throw ex.getCause();
        }
    }

    private static ClusterInstance instance(ClusterDatabase database, String name) {
        ClusterInstance instance = new ClusterInstance(
                database.jdbc(), database.dialect(), database.tables(), name, Duration.ofSeconds(30));
        instance.register();
        return instance;
    }
}
