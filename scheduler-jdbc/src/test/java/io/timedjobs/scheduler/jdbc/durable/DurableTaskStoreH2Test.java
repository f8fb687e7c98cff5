package io.timedjobs.scheduler.jdbc.durable;

import static org.assertj.core.api.Assertions.assertThat;

import io.timedjobs.scheduler.testsupport.TestDatabases;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The durable tasks statements on H2. */
class DurableTaskStoreH2Test extends DurableTaskStoreContract {

    private static final int THREADS = 6;

    private static final int KEYS = 30;

    @Override
    TestDatabases.Kind kind() {
        return TestDatabases.Kind.H2;
    }

    /**
     * Several instances scheduling the same task at once all succeed, one row kept: H2's MERGE does
     * not lock out a concurrent insert of the same key, so the upsert that loses tries again.
     */
    @Test
    void shouldUpsertTheSameKeyFromSeveralThreadsAtOnce() throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(THREADS);
        try {
            for (int key = 0; key < KEYS; key++) {
                String name = "recurring-" + key;
                CountDownLatch go = new CountDownLatch(1);
                List<Future<Long>> ids = new ArrayList<>();
                for (int thread = 0; thread < THREADS; thread++) {
                    ids.add(threads.submit(() -> {
                        go.await(10, TimeUnit.SECONDS);
                        return store.upsert(
                                "mail", name, null, "PT1M", Instant.now().plusSeconds(60));
                    }));
                }
                go.countDown();
                List<Long> answered = new ArrayList<>();
                for (Future<Long> id : ids) {
                    answered.add(id.get(30, TimeUnit.SECONDS));
                }
                assertThat(answered).as("ids of " + name).containsOnly(answered.get(0));
            }
            assertThat(store.query(DurableTaskQuery.all())).hasSize(KEYS);
        } finally {
            threads.shutdownNow();
        }
    }
}
