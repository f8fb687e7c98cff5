package io.timedjobs.scheduler.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** The ring of a job's recent lateness, checked against the samples it was given. */
class LatenessWindowTest {

    /** With fewer runs than its size it keeps them all, oldest first. */
    @Test
    void shouldKeepEveryRunWhileNotFull() {
        LatenessWindow window = new LatenessWindow();
        window.add(30);
        window.add(10);
        window.add(20);
        assertThat(window.recent()).containsExactly(30, 10, 20);
    }

    /** After more runs than its size it keeps only the most recent ones, oldest first. */
    @Test
    void shouldKeepOnlyTheMostRecentRuns() {
        LatenessWindow window = new LatenessWindow();
        for (long i = 1; i <= 1000; i++) {
            window.add(i);
        }
        assertThat(window.recent())
                .containsExactly(LongStream.rangeClosed(1000 - LatenessWindow.SIZE + 1, 1000)
                        .toArray());
    }

    /** Percentiles are nearest-rank over the kept runs; none kept gives 0. */
    @Test
    void shouldComputeNearestRankPercentiles() {
        long[] sorted = LatenessWindow.sorted(
                LongStream.rangeClosed(1, 100).map(i -> 101 - i).toArray());
        assertThat(LatenessWindow.quantile(sorted, 0.5)).isEqualTo(50);
        assertThat(LatenessWindow.quantile(sorted, 0.99)).isEqualTo(99);
        assertThat(LatenessWindow.quantile(sorted, 1.0)).isEqualTo(100);
        assertThat(LatenessWindow.quantile(new long[] {7}, 0.99)).isEqualTo(7);
        assertThat(LatenessWindow.quantile(new long[0], 0.5)).isZero();
    }
}
