package io.timedjobs.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/** A durable reminder survives a restart of the sample: scheduled before it stops, fired after it starts again. */
class ReminderRestartTest {

    /** A reminder scheduled before a restart fires once after it, from the H2 file database. */
    @Test
    void shouldFireAReminderScheduledBeforeARestart(@TempDir Path directory) {
        String[] properties = {
            "--spring.datasource.url=jdbc:h2:file:"
                    + directory.resolve("reminders").toAbsolutePath() + ";DB_CLOSE_ON_EXIT=FALSE",
            "--timed-jobs.cluster.poll-interval=100ms",
            "--timed-jobs.cluster.lease=2s",
            "--sample.jobs.report-cron=0 0 0 1 1 *"
        };
        try (ConfigurableApplicationContext first = start(properties)) {
            // Due well after the restart, which takes seconds on a busy machine, so that it is still pending then.
            first.getBean(ReminderService.class).schedule("survives the restart", Duration.ofSeconds(15));
            assertThat(first.getBean(ReminderService.class).pending()).hasSize(1);
        }

        try (ConfigurableApplicationContext second = start(properties)) {
            ReminderService reminders = second.getBean(ReminderService.class);
            assertThat(reminders.pending())
                    .extracting(ReminderService.Reminder::message)
                    .containsExactly("survives the restart");
            await().atMost(Duration.ofSeconds(40)).until(() -> reminders.firedCount() == 1);
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> reminders.pending().isEmpty());
        }
    }

    private static ConfigurableApplicationContext start(String[] properties) {
        return new SpringApplicationBuilder(SampleApplication.class)
                .web(WebApplicationType.NONE)
                .run(properties);
    }
}
