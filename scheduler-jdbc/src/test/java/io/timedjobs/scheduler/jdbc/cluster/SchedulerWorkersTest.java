package io.timedjobs.scheduler.jdbc.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.timedjobs.scheduler.spring.LeaderFollowerTaskScheduler;
import org.junit.jupiter.api.Test;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/** The workers of the scheduler a clustered job runs on, which bound its database calls in flight. */
class SchedulerWorkersTest {

    /** Spring's pool counts its configured threads, before and after it starts, not its live ones. */
    @Test
    void shouldCountTheConfiguredThreadsOfSpringsPool() {
        ThreadPoolTaskScheduler pool = new ThreadPoolTaskScheduler();
        pool.setPoolSize(3);
        assertThat(ClusteredTaskScheduler.poolSizeOf(pool))
                .as("before it starts")
                .isEqualTo(3);
        pool.initialize();
        try {
            assertThat(ClusteredTaskScheduler.poolSizeOf(pool))
                    .as("started, no thread yet")
                    .isEqualTo(3);
        } finally {
            pool.shutdown();
        }
    }

    /** Ours counts its pool, or on virtual threads its concurrency limit (0: no bound). */
    @Test
    void shouldCountOurPoolOrNoneOnVirtualThreads() {
        LeaderFollowerTaskScheduler ours = new LeaderFollowerTaskScheduler();
        ours.setPoolSize(5);
        assertThat(ClusteredTaskScheduler.poolSizeOf(ours)).isEqualTo(5);
        ours.setVirtualThreads(true);
        assertThat(ClusteredTaskScheduler.poolSizeOf(ours))
                .as("virtual, no limit")
                .isZero();
        ours.setConcurrencyLimit(8);
        assertThat(ClusteredTaskScheduler.poolSizeOf(ours))
                .as("virtual, limited")
                .isEqualTo(8);
    }
}
