package io.timedjobs.scheduler.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.ManualTicker;
import io.timedjobs.scheduler.dashboard.TimedJobsView.FateAt;
import io.timedjobs.scheduler.dashboard.TimedJobsView.HistoryPage;
import io.timedjobs.scheduler.dashboard.TimedJobsView.RunView;
import io.timedjobs.scheduler.spring.JobFate;
import io.timedjobs.scheduler.spring.LeaderFollowerTaskScheduler;
import io.timedjobs.scheduler.spring.TrackedJob;
import io.timedjobs.scheduler.testsupport.TestDelays;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Searching the fates of a local job's fires: filters, the cursor, the fate at an instant, refusals. */
class HistorySearchTest {

    private static final Instant ORIGIN = Instant.parse("2026-01-01T00:00:00Z");

    private final ManualTicker ticker = new ManualTicker(0L, ORIGIN);
    private final LeaderFollowerTaskScheduler scheduler = new LeaderFollowerTaskScheduler();

    HistorySearchTest() {
        scheduler.setPoolSize(1);
        scheduler.setTicker(ticker);
        scheduler.setThreadNamePrefix("history-search-test-");
        scheduler.initialize();
    }

    @AfterEach
    void shutDown() {
        scheduler.shutdown();
    }

    /**
     * Six fires ten seconds apart: the third throws, the fifth and sixth are skipped while paused
     * (one fate for both).
     */
    private TrackedJob sixFires() {
        AtomicInteger calls = new AtomicInteger();
        scheduler.scheduleAtFixedRate(
                () -> {
                    if (calls.incrementAndGet() == 3) {
                        throw new IllegalStateException("no route to host");
                    }
                },
                ORIGIN.plusSeconds(10),
                Duration.ofSeconds(10));
        TrackedJob job = scheduler.getJobRegistry().jobs().get(0);
        for (int fire = 1; fire <= 6; fire++) {
            if (fire == 5) {
                job.pause();
            }
            ticker.advance(10, TimeUnit.SECONDS);
            int expected = fire;
            await().atMost(TestDelays.LONG)
                    .until(() -> job.fates().stream().mapToLong(JobFate::fires).sum() == expected);
        }
        return job;
    }

    private HistorySearch search(String outcome, String reason, String at, String limit, String cursor) {
        List<TrackedJob> jobs = scheduler.getJobRegistry().jobs();
        String job = jobs.isEmpty() ? "poller" : jobs.get(0).name();
        return HistorySearch.parse(job, null, null, outcome, reason, null, null, at, limit, cursor);
    }

    /**
     * Pages follow one another by cursor, latest fire first, every fate once (the pause's two fires
     * one fate), the last without a cursor.
     */
    @Test
    void shouldPageThroughEveryFateByCursor() {
        TrackedJob job = sixFires();
        List<String> fires = new ArrayList<>();
        String cursor = null;
        int pages = 0;
        do {
            HistoryPage page = LocalFates.search(List.of(job), "here", search(null, null, null, "4", cursor));
            page.runs().forEach(run -> fires.add(run.fireAt()));
            cursor = page.next();
            pages++;
        } while (cursor != null && pages < 5);
        assertThat(pages).isEqualTo(2);
        assertThat(fires)
                .containsExactly(
                        "2026-01-01T00:00:50Z",
                        "2026-01-01T00:00:40Z",
                        "2026-01-01T00:00:30Z",
                        "2026-01-01T00:00:20Z",
                        "2026-01-01T00:00:10Z");
    }

    /**
     * Outcome and skip-reason filters keep only the fates asked for; a page leaves a failure's stack
     * trace out, the fate at its fire carries it.
     */
    @Test
    void shouldFilterByOutcomeAndSkipReason() {
        TrackedJob job = sixFires();
        List<RunView> failed = LocalFates.search(List.of(job), "here", search("failed", null, null, null, null))
                .runs();
        assertThat(failed).singleElement().satisfies(run -> {
            assertThat(run.fireAt()).isEqualTo("2026-01-01T00:00:30Z");
            assertThat(run.instance()).isEqualTo("here");
            assertThat(run.error()).isEqualTo("java.lang.IllegalStateException: no route to host");
            assertThat(run.stackTrace()).isNull();
        });
        assertThat(LocalFates.search(List.of(job), "here", search(null, null, "2026-01-01T00:00:30Z", null, null))
                        .runs())
                .filteredOn(run -> run.fireAt().equals("2026-01-01T00:00:30Z"))
                .singleElement()
                .satisfies(run ->
                        assertThat(run.stackTrace()).contains("at io.timedjobs.scheduler.dashboard.HistorySearchTest"));
        List<RunView> paused = LocalFates.search(List.of(job), "here", search(null, "PAUSED", null, null, null))
                .runs();
        assertThat(paused)
                .extracting(
                        RunView::outcome, RunView::skipReason, RunView::startedAt, RunView::fireUntil, RunView::fires)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("SKIPPED", "PAUSED", null, "2026-01-01T00:01:00Z", 2L));
        assertThat(LocalFates.search(List.of(job), "here", search(null, "STOPPING", null, null, null))
                        .runs())
                .isEmpty();
    }

    /** The fate at an instant is the fire at or before it and the next one after; none past the last. */
    @Test
    void shouldAnswerTheFateAtAnInstant() {
        TrackedJob job = sixFires();
        assertThat(LocalFates.search(List.of(job), "here", search(null, null, "2026-01-01T00:00:35Z", null, null))
                        .runs())
                .extracting(RunView::fireAt, RunView::outcome)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("2026-01-01T00:00:40Z", "SUCCEEDED"),
                        org.assertj.core.groups.Tuple.tuple("2026-01-01T00:00:30Z", "FAILED"));
        assertThat(LocalFates.search(List.of(job), "here", search(null, null, "2026-01-01T00:02:00Z", null, null))
                        .runs())
                .extracting(RunView::fireAt, RunView::skipReason)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("2026-01-01T00:00:50Z", "PAUSED"));
    }

    /**
     * The answer at an instant says which fate covers it: a run at its fire, a pause over its range,
     * none between two fires, with the neighbours either side.
     */
    @Test
    void shouldSayWhichFateCoversAnInstant() {
        TrackedJob job = sixFires();
        FateAt failed = fateAt(job, "2026-01-01T00:00:30Z");
        assertThat(failed.fate()).isEqualTo("ran");
        assertThat(failed.covering())
                .singleElement()
                .satisfies(run -> assertThat(run.stackTrace()).contains("no route to host"));
        assertThat(failed.before().fireAt()).isEqualTo("2026-01-01T00:00:20Z");
        assertThat(failed.after().fireAt()).isEqualTo("2026-01-01T00:00:40Z");

        FateAt between = fateAt(job, "2026-01-01T00:00:35Z");
        assertThat(between.fate()).isEqualTo("none");
        assertThat(between.covering()).isEmpty();
        assertThat(between.before().fireAt()).isEqualTo("2026-01-01T00:00:30Z");
        assertThat(between.after().fireAt()).isEqualTo("2026-01-01T00:00:40Z");

        FateAt paused = fateAt(job, "2026-01-01T00:01:00Z");
        assertThat(paused.fate()).isEqualTo("skipped");
        assertThat(paused.covering()).extracting(RunView::skipReason).containsExactly("PAUSED");
        assertThat(paused.after()).isNull();
    }

    private FateAt fateAt(TrackedJob job, String at) {
        HistoryPage page = LocalFates.search(List.of(job), "here", search(null, null, at, null, null));
        assertThat(page.fate()).isNotNull();
        assertThat(page.runs()).isEqualTo(page.fate().listed());
        return page.fate();
    }

    /** One fate opens whole by the id a page gave it, its stack trace included; an unknown id finds none. */
    @Test
    void shouldOpenOneFateWholeByItsId() {
        TrackedJob job = sixFires();
        RunView listed = LocalFates.search(List.of(job), "here", search("FAILED", null, null, null, null))
                .runs()
                .get(0);
        assertThat(listed.stackTrace()).isNull();
        assertThat(listed.id()).startsWith("L");

        RunView opened = LocalFates.record(
                List.of(job), "here", Long.parseLong(listed.id().substring(1)));

        assertThat(opened).isNotNull();
        assertThat(opened.fireAt()).isEqualTo(listed.fireAt());
        assertThat(opened.stackTrace()).startsWith("java.lang.IllegalStateException: no route to host");
        assertThat(LocalFates.record(List.of(job), "here", Long.MAX_VALUE)).isNull();
    }

    /**
     * Once a job's memory lets old fates go, each answer says from which fire its fates are whole,
     * and an instant before it is unknown, not a fire without a fate.
     */
    @Test
    void shouldSayFromWhichFireTheMemoryKnowsEveryFate() {
        scheduler.scheduleAtFixedRate(() -> {}, ORIGIN.plusSeconds(1), Duration.ofSeconds(1));
        TrackedJob job = scheduler.getJobRegistry().jobs().get(0);
        assertThat(LocalFates.search(List.of(job), "here", search(null, null, null, null, null))
                        .knownFrom())
                .isEmpty();

        // the fixed rate catches up: every fire runs, back to back
        ticker.advance(TrackedJob.FATES_KEPT + 10, TimeUnit.SECONDS);
        await().atMost(TestDelays.LONG)
                .until(() -> job.fates().get(0).fireAt().equals(ORIGIN.plusSeconds(TrackedJob.FATES_KEPT + 10)));

        String knownFrom = ORIGIN.plusSeconds(11).toString();
        assertThat(LocalFates.search(List.of(job), "here", search(null, null, null, null, null))
                        .knownFrom())
                .containsExactly(org.assertj.core.api.Assertions.entry(job.name(), knownFrom));
        FateAt forgotten = fateAt(job, ORIGIN.plusSeconds(5).toString());
        assertThat(forgotten.fate()).isEqualTo("unknown");
        assertThat(fateAt(job, knownFrom).fate()).isEqualTo("ran");
    }

    /** Each bad parameter is refused with a message that names it and says what it takes. */
    @Test
    void shouldRefuseBadParametersClearly() {
        assertThatThrownBy(() -> search("EXPLODED", null, null, null, null))
                .hasMessageContaining("Unknown outcome 'EXPLODED'")
                .hasMessageContaining("SKIPPED");
        assertThatThrownBy(() -> search(null, "TIRED", null, null, null))
                .hasMessageContaining("Unknown reason 'TIRED'");
        assertThatThrownBy(() -> search(null, null, "yesterday", null, null))
                .hasMessageContaining("at 'yesterday' is not an ISO-8601 instant");
        assertThatThrownBy(() -> search(null, null, null, "0", null))
                .hasMessageContaining("limit must be between 1 and " + HistorySearch.MAX_LIMIT);
        assertThatThrownBy(() -> search(null, null, null, "501", null)).hasMessageContaining("got 501");
        assertThatThrownBy(() -> search(null, null, null, "ten", null)).hasMessageContaining("limit 'ten'");
        assertThatThrownBy(() -> HistorySearch.parse(
                        null, null, null, null, null, null, null, "2026-01-01T00:00:00Z", null, null))
                .hasMessageContaining("give job too");
        assertThatThrownBy(() -> LocalFates.search(List.of(), "here", search(null, null, null, null, "C1/2")))
                .hasMessageContaining("cursor 'C1/2'");
    }
}
