package io.timedjobs.sample;

import io.timedjobs.scheduler.jdbc.durable.DurableTask;
import io.timedjobs.scheduler.jdbc.durable.DurableTaskHandler;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Called on the durable task workers. Fires reminders: the durable tasks of handler "reminders",
 * whose payload is the reminder's message and whose key is its id.
 */
@Component(ReminderHandler.NAME)
public class ReminderHandler implements DurableTaskHandler<String> {

    /** The handler's name, under which reminders are scheduled. */
    public static final String NAME = "reminders";

    private static final Logger log = LoggerFactory.getLogger(ReminderHandler.class);

    private final AtomicLong fired = new AtomicLong();

    @Override
    public Class<String> payloadType() {
        return String.class;
    }

    @Override
    public void handle(DurableTask<String> task) {
        fired.incrementAndGet();
        log.info("Reminder {} (attempt {}): {}", task.key(), task.attempt(), task.payload());
    }

    /** Returns how many reminders have fired on this instance since start-up. */
    long firedCount() {
        return fired.get();
    }
}
