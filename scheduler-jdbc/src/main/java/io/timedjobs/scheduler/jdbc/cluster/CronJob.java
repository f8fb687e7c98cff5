package io.timedjobs.scheduler.jdbc.cluster;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.scheduling.support.CronExpression;

/**
 * A clustered cron job; thread rule of {@link ClusteredJob}. Fires are the instants of the cron
 * expression in the shared zone, which is recorded with the job: an instance whose zone differs
 * would fire at other instants, so it runs nothing of the job and says so.
 */
final class CronJob extends ClusteredJob {

    private final String expression;
    private final CronExpression cron;
    private final ZoneId zone;

    public CronJob(String name, Runnable task, Context context, String expression, ZoneId zone) {
        super(name, task, context);
        this.expression = Objects.requireNonNull(expression, "expression");
        this.cron = CronExpression.parse(expression);
        this.zone = Objects.requireNonNull(zone, "zone");
    }

    @Override
    protected boolean register() {
        JobStore.JobRow row = context.store().register(name, "cron", expression, zone.getId(), null, null);
        if (!zone.getId().equals(row.timeZone())) {
            disable("its cron zone here is " + zone.getId() + " but the job is recorded with " + row.timeZone()
                    + "; set timed-jobs.cluster.time-zone (or the zone of @Scheduled) alike on every instance");
        }
        return true;
    }

    @Override
    protected @Nullable Instant nextFire() {
        Instant now = context.clock().now();
        Instant last = lastFire;
        Instant base = last != null && last.isAfter(now) ? last : now;
        ZonedDateTime next = cron.next(base.atZone(zone));
        return next == null ? null : next.toInstant();
    }

    @Override
    protected void runFire(Instant fire) {
        recordAndRun(fire);
    }

    @Override
    public String jobSchedule() {
        return "cron " + expression + " (" + zone.getId() + ")";
    }
}
