package io.timedjobs.acceptance.app;

import io.timedjobs.scheduler.jdbc.durable.DurableTask;
import io.timedjobs.scheduler.jdbc.durable.DurableTaskHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Profile;
import org.springframework.stereotype.Component;

/**
 * Spring bean of the {@code durable} profile, called by the durable task engine's workers. The
 * handler {@code reminders}: logs {@code REMINDER key=<key> attempt=<n> instance=<name>} at INFO,
 * a line that carries the trace id in Boot's log pattern when tracing is on.
 */
@Component("reminders")
@Profile("durable")
public class ReminderHandler implements DurableTaskHandler<Reminder> {

    private static final Logger logger = LoggerFactory.getLogger(ReminderHandler.class);

    private final String instance;

    public ReminderHandler(@Value("${timed-jobs.cluster.instance-name:unnamed}") String instance) {
        this.instance = instance;
    }

    @Override
    public Class<Reminder> payloadType() {
        return Reminder.class;
    }

    @Override
    public void handle(DurableTask<Reminder> task) {
        logger.info("REMINDER key={} attempt={} instance={}", task.key(), task.attempt(), instance);
    }
}
