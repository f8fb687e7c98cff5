package io.timedjobs.scheduler.jdbc.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.timedjobs.scheduler.ManualTicker;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The order in which the live instances try a fire: the same everywhere, even, and stable. */
class FireOrderTest {

    private static final Instant START = Instant.parse("2026-11-28T00:00:00Z");
    private static final List<String> FOUR = List.of("web-1", "web-2", "web-3", "web-4");

    /** Each fire has one first instance, and the ranks of the live instances are 0 to n-1, each once. */
    @Test
    void shouldGiveEachFireOneOrderOfAllTheInstances() {
        for (int second = 0; second < 1_000; second++) {
            Instant fire = START.plusSeconds(second);
            assertThat(FOUR.stream().map(name -> FireOrder.rank("report.send", fire, name, FOUR)))
                    .containsExactlyInAnyOrder(0, 1, 2, 3);
            assertThat(FireOrder.rank("report.send", fire, "web-2", FOUR))
                    .as("the same order whatever order the names are listed in")
                    .isEqualTo(
                            FireOrder.rank("report.send", fire, "web-2", List.of("web-4", "web-3", "web-2", "web-1")));
        }
    }

    /** The first instance of 20 jobs' fires over 10 minutes falls on each of four within 22% to 28%. */
    @Test
    void shouldSpreadTheFiresEvenlyOverTheInstances() {
        Map<String, Integer> firsts = firsts(FOUR, 20, 600);

        assertThat(firsts.values()).allSatisfy(count -> assertThat(count).isBetween(2_640, 3_360));
    }

    /** Each job's fires, not only all of them together, go to every instance in turn. */
    @Test
    void shouldSpreadTheFiresOfEachJob() {
        for (int job = 0; job < 20; job++) {
            Map<String, Integer> firsts = firstsOfJob(FOUR, job, 400);
            assertThat(firsts.values())
                    .as("job %d", job)
                    .allSatisfy(count -> assertThat(count).isBetween(60, 140));
        }
    }

    /** An instance that joins takes about one fire in five from four, and no fire moves between the others. */
    @Test
    void shouldMoveOnlyTheFiresOfAnInstanceThatJoins() {
        List<String> five = List.of("web-1", "web-2", "web-3", "web-4", "web-5");
        int moved = 0;
        int total = 0;
        for (int job = 0; job < 20; job++) {
            for (int second = 0; second < 600; second++) {
                Instant fire = START.plusSeconds(second);
                String before = first(FOUR, "job-" + job, fire);
                String after = first(five, "job-" + job, fire);
                if (!before.equals(after)) {
                    assertThat(after)
                            .as("a fire moves only to the instance that joined")
                            .isEqualTo("web-5");
                    moved++;
                }
                total++;
            }
        }
        assertThat((double) moved / total).isBetween(0.17, 0.23);
    }

    /** An instance counts itself, ranks first for every fire before its first read, and again once the read is too old. */
    @Test
    void shouldRankFirstWithoutATrustedView() {
        ManualTicker ticker = new ManualTicker();
        Instant fire = START.plusSeconds(7);
        String self = first(FOUR, "report.send", fire).equals("web-2") ? "web-1" : "web-2";
        FireOrder order = new FireOrder(self, ticker);
        assertThat(order.rank("report.send", fire)).as("no view yet").isZero();

        order.seen(FOUR.stream().filter(name -> !name.equals(self)).toList(), Duration.ofSeconds(30));
        assertThat(order.live()).as("itself counted").contains(self).hasSize(4);
        assertThat(order.rank("report.send", fire)).isEqualTo(FireOrder.rank("report.send", fire, self, FOUR));
        assertThat(order.rank("report.send", fire)).isPositive();

        ticker.advance(Duration.ofSeconds(31));
        assertThat(order.live()).as("a view older than it was trusted for").isNull();
        assertThat(order.rank("report.send", fire)).isZero();

        order.seen(FOUR, Duration.ofSeconds(30));
        order.forget();
        assertThat(order.rank("report.send", fire)).as("forgotten").isZero();
    }

    private static Map<String, Integer> firsts(List<String> instances, int jobs, int seconds) {
        Map<String, Integer> firsts = new HashMap<>();
        for (int job = 0; job < jobs; job++) {
            firstsOfJob(instances, job, seconds).forEach((name, count) -> firsts.merge(name, count, Integer::sum));
        }
        return firsts;
    }

    private static Map<String, Integer> firstsOfJob(List<String> instances, int job, int seconds) {
        Map<String, Integer> firsts = new HashMap<>();
        for (int second = 0; second < seconds; second++) {
            firsts.merge(first(instances, "job-" + job, START.plusSeconds(second)), 1, Integer::sum);
        }
        return firsts;
    }

    private static String first(List<String> instances, String job, Instant fire) {
        return instances.stream()
                .filter(name -> FireOrder.rank(job, fire, name, instances) == 0)
                .findFirst()
                .orElseThrow();
    }
}
