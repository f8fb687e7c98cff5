package io.timedjobs.scheduler.spring;

import java.time.Duration;

/**
 * Any thread may call it: implemented by work that runs as a repeating job under a name of its
 * own, such as the clustered jobs of {@code scheduler-jdbc}, so that the {@link JobRegistry} and
 * the meters show that name and schedule instead of the work's class.
 */
public interface NamedJob {

    /** Returns the job's name, the same on every instance running the same code. */
    String jobName();

    /** Returns the job's schedule in words, such as {@code cron 0 0 * * * *} or {@code every 5s}. */
    String jobSchedule();

    /** Returns what runs the job's work once now, outside its schedule and its claims. */
    Runnable unscheduledRun();

    /** Returns whether the job's fires are shared by several instances, each fire run by one. */
    default boolean sharedByInstances() {
        return false;
    }

    /** Returns a duration as schedules write it: {@code 250ms}, {@code 5s}, {@code 15m}, {@code 2h}. */
    static String words(Duration duration) {
        if (duration.isNegative()
                || duration.isZero()
                || duration.getSeconds() > 1_000_000_000L
                || duration.getNano() % 1_000_000 != 0) {
            return duration.toString();
        }
        long millis = duration.toMillis();
        if (millis % 3_600_000L == 0) {
            return millis / 3_600_000L + "h";
        }
        if (millis % 60_000L == 0) {
            return millis / 60_000L + "m";
        }
        if (millis % 1_000L == 0) {
            return millis / 1_000L + "s";
        }
        return millis + "ms";
    }
}
