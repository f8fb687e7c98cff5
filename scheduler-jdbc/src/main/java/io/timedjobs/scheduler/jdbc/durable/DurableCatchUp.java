package io.timedjobs.scheduler.jdbc.durable;

import io.timedjobs.scheduler.jdbc.cluster.CatchUpPolicy;
import java.time.Instant;
import java.util.ArrayDeque;
import org.jspecify.annotations.Nullable;

/**
 * Stateless; any thread. The catch-up of a recurring durable task's missed fires, by the {@link
 * CatchUpPolicy} of its {@link DurableSchedule}.
 *
 * <p>The task's row is its own watermark: its {@code fire_at} is the next nominal fire to run, and it
 * moves only by a completion fenced by the claim version (a compare-and-set), so each nominal fire
 * runs at most once however many instances start together. A fire is missed when a later fire of
 * the schedule is due already as it starts (the instances were down, or the database away, for
 * longer than a period). The instance that starts a missed fire the policy does not run moves the
 * row, by that same fenced completion and without running the handler, to the fire the policy runs
 * next, or to the first fire after now; that fire is claimed and run like any other.
 */
final class DurableCatchUp {

    private DurableCatchUp() {}

    /**
     * Returns the fire to move the task to without running {@code fireAt}, or null to run it: for a
     * schedule without a policy, or a fire that is not missed, always null.
     */
    static @Nullable Instant skipTo(DurableSchedule schedule, Instant fireAt, Instant now) {
        CatchUpPolicy policy = schedule.catchUpPolicy();
        if (policy == null || schedule.next(fireAt, fireAt).isAfter(now)) {
            return null;
        }
        Instant windowStart = now.minus(policy.window());
        ArrayDeque<Instant> kept = new ArrayDeque<>();
        int keep = switch (policy.mode()) {
            case SKIP -> 0;
            case ONCE -> 1;
            case EACH -> policy.maxFires();
        };
        Instant first = fireAt.isBefore(windowStart) ? schedule.next(fireAt, windowStart.minusNanos(1)) : fireAt;
        for (Instant fire = first; keep > 0 && !fire.isAfter(now); fire = schedule.next(fire, fire)) {
            if (kept.size() == keep) {
                kept.pollFirst();
            }
            kept.addLast(fire);
        }
        Instant target = kept.isEmpty() ? schedule.next(fireAt, now) : kept.peekFirst();
        return target.equals(fireAt) ? null : target;
    }

    /**
     * Returns the fire after {@code fireAt} ran: for {@code EACH}, the schedule's next nominal fire,
     * due or not (its start applies the bounds again); else null for the usual one, the first after
     * the run.
     */
    static @Nullable Instant nextAfterRun(DurableSchedule schedule, Instant fireAt) {
        CatchUpPolicy policy = schedule.catchUpPolicy();
        if (policy == null || policy.mode() != io.timedjobs.scheduler.jdbc.CatchUp.Policy.EACH) {
            return null;
        }
        return schedule.next(fireAt, fireAt);
    }
}
