package io.timedjobs.sample;

import io.timedjobs.sample.JobActivity.JobRun;
import io.timedjobs.sample.ReminderService.Reminder;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/** {@code POST /reminders} schedules a reminder, {@code GET /reminders} lists pending ones. */
@RestController
public class ReminderController {

    /** Longest delay a reminder may ask for. */
    static final Duration MAX_DELAY = Duration.ofDays(1);

    /** Longest message a reminder may carry. */
    static final int MAX_MESSAGE_LENGTH = 200;

    /** Body of {@code POST /reminders}, for example {@code {"message": "stretch", "delay": "PT10S"}}. */
    public record ReminderRequest(
            @Nullable String message, @Nullable Duration delay) {}

    private final ReminderService reminders;
    private final JobActivity activity;

    ReminderController(ReminderService reminders, JobActivity activity) {
        this.reminders = reminders;
        this.activity = activity;
    }

    @PostMapping("/reminders")
    public ResponseEntity<Reminder> create(@RequestBody ReminderRequest request) {
        String message = request.message();
        if (message == null || message.isBlank()) {
            throw badRequest("message must not be blank");
        }
        if (message.length() > MAX_MESSAGE_LENGTH) {
            throw badRequest("message must be at most " + MAX_MESSAGE_LENGTH + " characters");
        }
        Duration delay = request.delay();
        if (delay == null) {
            throw badRequest("delay is required, as an ISO-8601 duration such as \"PT10S\"");
        }
        if (delay.isNegative() || delay.isZero() || delay.compareTo(MAX_DELAY) > 0) {
            throw badRequest("delay must be more than zero and at most " + MAX_DELAY + ", was " + delay);
        }
        Reminder reminder = reminders.schedule(message, delay);
        return ResponseEntity.created(URI.create("/reminders/" + reminder.id())).body(reminder);
    }

    @GetMapping("/reminders")
    public List<Reminder> pending() {
        return reminders.pending();
    }

    /** Shows when each {@code @Scheduled} job last ran, and on which thread. */
    @GetMapping("/jobs")
    public Map<String, JobRun> jobs() {
        return activity.lastRuns();
    }

    private static ResponseStatusException badRequest(String reason) {
        return new ResponseStatusException(HttpStatus.BAD_REQUEST, reason);
    }
}
