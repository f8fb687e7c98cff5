package io.timedjobs.sample;

import io.timedjobs.scheduler.jdbc.durable.DurableTaskInfo;
import io.timedjobs.scheduler.jdbc.durable.DurableTaskQuery;
import io.timedjobs.scheduler.jdbc.durable.DurableTaskState;
import io.timedjobs.scheduler.jdbc.durable.DurableTasks;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Service;

/**
 * Schedules one-off reminders as durable tasks: stored in the application's database, so that a
 * reminder survives a restart of the sample (or, with several instances, the death of one).
 */
@Service
public class ReminderService {

    /** A reminder waiting for its time. */
    public record Reminder(UUID id, String message, Instant dueAt) {}

    private final DurableTasks tasks;
    private static final Logger log = LoggerFactory.getLogger(ReminderService.class);

    private final ReminderHandler handler;

    ReminderService(DurableTasks tasks, ReminderHandler handler) {
        this.tasks = tasks;
        this.handler = handler;
    }

    /** Schedules a reminder {@code delay} from now. */
    public Reminder schedule(String message, Duration delay) {
        Reminder reminder =
                new Reminder(UUID.randomUUID(), message, Instant.now().plus(delay));
        tasks.schedule(ReminderHandler.NAME, reminder.id().toString(), reminder.dueAt(), message);
        // with tracing on, this line and the reminder's own line later carry the same trace id
        log.info("Scheduled reminder {} for {}", reminder.id(), reminder.dueAt());
        return reminder;
    }

    /** Returns the reminders still waiting, soonest first. */
    public List<Reminder> pending() {
        return tasks.find(DurableTaskQuery.all().handler(ReminderHandler.NAME)).stream()
                .filter(task -> task.state() != DurableTaskState.FAILED)
                .map(ReminderService::reminder)
                .toList();
    }

    /** Returns how many reminders have fired on this instance since start-up. */
    public long firedCount() {
        return handler.firedCount();
    }

    private static Reminder reminder(DurableTaskInfo task) {
        return new Reminder(UUID.fromString(task.key()), Objects.requireNonNullElse(task.payload(), ""), task.fireAt());
    }
}
