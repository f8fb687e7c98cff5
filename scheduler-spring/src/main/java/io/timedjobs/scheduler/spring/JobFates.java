package io.timedjobs.scheduler.spring;

import io.timedjobs.scheduler.spring.JobFate.Outcome;
import io.timedjobs.scheduler.spring.JobFate.SkipReason;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: guarded by the monitor of the {@link TrackedJob} that owns it. The fates of a
 * job's latest fires on this instance, in a ring of fixed size, so memory stays bounded whatever
 * the number of fires: at most {@code size} fates, each with at most {@value
 * JobFate#STACK_TRACE_LENGTH} characters of stack trace. Consecutive fires skipped for one reason
 * extend one fate (a range with its count), so a pause of any length takes one place in the ring.
 */
final class JobFates {

    /** Orders the fates of every job of the process, for a cursor that pages across jobs. */
    private static final AtomicLong SEQUENCE = new AtomicLong();

    private final JobFate[] ring;

    /** Fates recorded so far; the next one goes to {@code count % ring.length}. */
    private long count;

    JobFates(int size) {
        if (size < 1) {
            throw new IllegalArgumentException("size must be at least 1, got " + size);
        }
        this.ring = new JobFate[size];
    }

    void ran(Instant fireAt, Instant startedAt, long durationNanos, @Nullable Throwable failure) {
        add(new JobFate(
                SEQUENCE.incrementAndGet(),
                fireAt,
                fireAt,
                1,
                startedAt,
                durationNanos,
                failure == null ? Outcome.SUCCEEDED : Outcome.FAILED,
                null,
                failure == null ? null : errorSummary(failure),
                failure == null ? null : stackTrace(failure)));
    }

    /** Records a skipped fire: the latest fate grows by one fire when it is a skip for this reason. */
    void skipped(Instant fireAt, SkipReason reason) {
        skipped(fireAt, fireAt, 1, reason);
    }

    /**
     * Records a range of fires skipped for one reason, from {@code first} to {@code last}: the latest
     * fate grows by them when it is a skip for this reason that ends at or before {@code first}.
     */
    void skipped(Instant first, Instant last, long fires, SkipReason reason) {
        if (fires < 1 || last.isBefore(first)) {
            throw new IllegalArgumentException(
                    "a range of skipped fires needs at least one fire, from first to last; got " + fires + " from "
                            + first + " to " + last);
        }
        JobFate latest = count == 0 ? null : ring[(int) ((count - 1) % ring.length)];
        if (latest != null && latest.skipReason() == reason && !first.isBefore(latest.fireUntil())) {
            // keeps its sequence: a cursor that paged past it stays valid
            ring[(int) ((count - 1) % ring.length)] = new JobFate(
                    latest.sequence(),
                    latest.fireAt(),
                    last,
                    latest.fires() + fires,
                    null,
                    0L,
                    Outcome.SKIPPED,
                    reason,
                    null,
                    null);
            return;
        }
        add(new JobFate(SEQUENCE.incrementAndGet(), first, last, fires, null, 0L, Outcome.SKIPPED, reason, null, null));
    }

    /**
     * Returns the nominal fire from which the kept fates tell every fire (the oldest kept fate's),
     * when the ring has let older fates go; null while it holds every fate recorded.
     */
    @Nullable
    Instant knownFrom() {
        if (count <= ring.length) {
            return null;
        }
        return ring[(int) (count % ring.length)].fireAt();
    }

    private void add(JobFate fate) {
        ring[(int) (count % ring.length)] = fate;
        count++;
    }

    /** Returns the kept fates, latest first. */
    List<JobFate> latestFirst() {
        int size = (int) Math.min(count, ring.length);
        List<JobFate> out = new ArrayList<>(size);
        for (int i = 1; i <= size; i++) {
            out.add(ring[(int) ((count - i) % ring.length)]);
        }
        return out;
    }

    static String errorSummary(Throwable failure) {
        String message = failure.getMessage();
        return cut(failure.getClass().getName() + (message == null ? "" : ": " + message), JobFate.ERROR_LENGTH);
    }

    static String stackTrace(Throwable failure) {
        StringWriter out = new StringWriter();
        failure.printStackTrace(new PrintWriter(out));
        return cut(out.toString(), JobFate.STACK_TRACE_LENGTH);
    }

    private static String cut(String text, int length) {
        return text.length() <= length ? text : text.substring(0, length - 1) + "…";
    }
}
