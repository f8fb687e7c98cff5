package io.timedjobs.scheduler.jdbc.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.jdbc.LoggedWarnings;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The end of a run written on a helper thread, when every worker but one waits on the database. */
class SlowCallsTest {

    /** A helper's write that fails with something other than a database error is logged, not printed. */
    @Test
    void shouldLogAFailureOfAWriteOnAHelper() throws Exception {
        SlowCalls calls = new SlowCalls("a");
        Object other = calls.begin(); // the one call a scheduler of two workers has room for
        CountDownLatch done = new CountDownLatch(1);
        try (LoggedWarnings warnings = LoggedWarnings.capture()) {
            boolean helped = calls.endOfRun(
                    2,
                    () -> {
                        throw new IllegalStateException("broken write");
                    },
                    done::countDown);

            assertThat(helped).as("written on a helper").isTrue();
            assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> warnings.lines().stream()
                            .anyMatch(line -> line.startsWith("ERROR")
                                    && line.contains("timed-jobs-run-end-a-")
                                    && line.contains("broken write")));
        } finally {
            calls.end(other);
            calls.stop();
        }
    }
}
