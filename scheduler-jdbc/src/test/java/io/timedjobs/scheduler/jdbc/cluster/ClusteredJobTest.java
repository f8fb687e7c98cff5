package io.timedjobs.scheduler.jdbc.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;
import org.springframework.scheduling.SchedulingAwareRunnable;

class ClusteredJobTest {

    /** A clustered job asks Spring's router for the scheduler its method asked for. */
    @Test
    void shouldKeepTheQualifierOfItsTask() {
        SchedulingAwareRunnable task = new SchedulingAwareRunnable() {
            @Override
            public void run() {}

            @Override
            public String getQualifier() {
                return "reports";
            }
        };
        JobContext context = new JobContext(
                null,
                null,
                new ClusterJobStats(),
                null,
                Duration.ofSeconds(1),
                Duration.ofMinutes(1),
                Duration.ofMinutes(1));
        ClusteredJob job = new CronJob("bean.method", task, context, "* * * * * *", ZoneOffset.UTC);

        assertThat(job.getQualifier()).isEqualTo("reports");
        assertThat(new CronJob("bean.method", () -> {}, context, "* * * * * *", ZoneOffset.UTC).getQualifier())
                .isNull();
    }
}
