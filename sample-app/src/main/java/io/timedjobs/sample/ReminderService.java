package io.timedjobs.sample;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.stereotype.Service;

/**
 * Schedules one-off reminders on the application's {@link TaskScheduler}, which the starter
 * provides: the service itself knows nothing of Timed Jobs.
 */
@Service
public class ReminderService {

    private static final Logger log = LoggerFactory.getLogger(ReminderService.class);

    /** A reminder waiting for its time. */
    public record Reminder(UUID id, String message, Instant dueAt) {}

    private final TaskScheduler scheduler;
    private final Clock clock;
    private final Map<UUID, Reminder> pending = new ConcurrentHashMap<>();
    private final AtomicLong fired = new AtomicLong();

    ReminderService(TaskScheduler scheduler) {
        this.scheduler = scheduler;
        this.clock = scheduler.getClock();
    }

    /** Schedules a reminder {@code delay} from now. */
    public Reminder schedule(String message, Duration delay) {
        Reminder reminder =
                new Reminder(UUID.randomUUID(), message, clock.instant().plus(delay));
        // listed before it is scheduled, so that one due at once is never listed after it fired
        pending.put(reminder.id(), reminder);
        try {
            scheduler.schedule(() -> fire(reminder), reminder.dueAt());
        } catch (RuntimeException rejected) {
            pending.remove(reminder.id());
            throw rejected;
        }
        return reminder;
    }

    private void fire(Reminder reminder) {
        pending.remove(reminder.id());
        fired.incrementAndGet();
        log.info("Reminder {}: {}", reminder.id(), reminder.message());
    }

    /** Returns the reminders still waiting, soonest first. */
    public List<Reminder> pending() {
        return pending.values().stream()
                .sorted(Comparator.comparing(Reminder::dueAt))
                .toList();
    }

    /** Returns how many reminders have fired since start-up. */
    public long firedCount() {
        return fired.get();
    }
}
