package io.timedjobs.acceptance.app;

import io.timedjobs.scheduler.jdbc.durable.DurableTasks;
import java.time.Duration;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.annotation.Profile;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Spring MVC controller of the {@code durable} profile, called by Tomcat's threads: {@code POST
 * /reminders?key=...&delay=PT5S} schedules a durable reminder, inside the request's observation, and
 * logs {@code SCHEDULE key=<key>} at INFO first (under the request's trace id when tracing is on).
 */
@RestController
@Profile("durable")
public class ReminderController {

    private static final Logger logger = LoggerFactory.getLogger(ReminderController.class);

    private final DurableTasks durableTasks;

    public ReminderController(DurableTasks durableTasks) {
        this.durableTasks = durableTasks;
    }

    @PostMapping("/reminders")
    public Map<String, Object> schedule(@RequestParam String key, @RequestParam Duration delay) {
        logger.info("SCHEDULE key={} delay={}", key, delay);
        long id = durableTasks.schedule("reminders", key, delay, new Reminder("reminder " + key));
        return Map.of("id", id, "key", key);
    }
}
