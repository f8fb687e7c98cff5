package io.timedjobs.scheduler.jdbc.database;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.commons.logging.impl.NoOpLog;
import org.junit.jupiter.api.Test;

class OutageLogTest {

    /** Ten failures in a row make one ERROR line, and the first success one INFO line. */
    @Test
    void shouldLogOncePerOutageAndOnceAtRecovery() {
        List<String> lines = new ArrayList<>();
        AtomicLong nanos = new AtomicLong(1_000);
        OutageLog outages = new OutageLog(new RecordingLog(lines), "clustered jobs", nanos::get);

        outages.succeeded();
        for (int i = 0; i < 10; i++) {
            outages.failed("claim", new IllegalStateException("down"));
        }
        assertThat(outages.inOutage()).isTrue();
        nanos.addAndGet(5_000_000_000L);
        outages.succeeded();
        outages.succeeded();
        outages.failed("claim", new IllegalStateException("down again"));

        assertThat(lines)
                .hasSize(3)
                .satisfies(
                        l -> assertThat(l.get(0)).startsWith("ERROR Database unavailable for clustered jobs (claim)"))
                .satisfies(l -> assertThat(l.get(1))
                        .startsWith("INFO Database available again")
                        .contains("PT5S")
                        .contains("10 failed"))
                .satisfies(l -> assertThat(l.get(2)).startsWith("ERROR"));
        assertThat(outages.failureCount()).isEqualTo(11);
        assertThat(outages.outageCount()).isEqualTo(2);
    }

    private static final class RecordingLog extends NoOpLog {
        private static final long serialVersionUID = 1L;
        private final transient List<String> lines;

        RecordingLog(List<String> lines) {
            this.lines = lines;
        }

        @Override
        public void error(Object message, Throwable t) {
            lines.add("ERROR " + message);
        }

        @Override
        public void info(Object message) {
            lines.add("INFO " + message);
        }
    }
}
