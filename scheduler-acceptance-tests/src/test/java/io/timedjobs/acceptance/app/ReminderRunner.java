package io.timedjobs.acceptance.app;

import io.timedjobs.scheduler.jdbc.durable.DurableSchedule;
import io.timedjobs.scheduler.jdbc.durable.DurableTasks;
import java.time.Duration;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.context.annotation.Profile;
import org.springframework.stereotype.Component;

/**
 * Spring bean of the {@code durable} profile, run once by Boot after start-up: schedules five
 * reminders of this instance, due over the next seconds, and the recurring reminder {@code
 * every-5s}, which every instance schedules under the same key (the last one replaces it).
 */
@Component
@Profile("durable")
public class ReminderRunner implements ApplicationRunner {

    private final DurableTasks durableTasks;
    private final String instance;

    public ReminderRunner(
            DurableTasks durableTasks, @Value("${timed-jobs.cluster.instance-name:unnamed}") String instance) {
        this.durableTasks = durableTasks;
        this.instance = instance;
    }

    @Override
    public void run(ApplicationArguments args) {
        for (int i = 1; i <= 5; i++) {
            durableTasks.schedule(
                    "reminders", instance + "-start-" + i, Duration.ofSeconds(i), new Reminder("start " + i));
        }
        durableTasks.scheduleRecurring(
                "reminders", "every-5s", DurableSchedule.every(Duration.ofSeconds(5)), new Reminder("recurring"));
    }
}
