package io.timedjobs.scheduler.jdbc.cluster;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.scheduling.support.CronExpression;

/**
 * A clustered cron job; thread rule of {@link ClusteredJob}. Fires are the instants of the cron
 * expression in its zone; expression and zone are its definition, so a deploy that changes either
 * switches the job to the new one (see {@link ClusteredJob}). The next fire is the first after
 * now; the fires a run here outlasted are written as still running ({@link PassedFires}).
 */
final class CronJob extends RecordedFireJob {

    private final String expression;
    private final CronExpression cron;
    private final ZoneId zone;

    public CronJob(String name, Runnable task, JobContext context, String expression, ZoneId zone) {
        super(name, task, context);
        this.expression = Objects.requireNonNull(expression, "expression");
        this.cron = CronExpression.parse(expression);
        this.zone = Objects.requireNonNull(zone, "zone");
        define(new JobDefinition("cron", expression, zone.getId(), java.time.Duration.ZERO));
    }

    @Override
    protected @Nullable Instant nextFire() {
        Instant now = context.clock().now();
        Instant last = lastFire;
        Instant base = last != null && last.isAfter(now) ? last : now;
        ZonedDateTime next = cron.next(base.atZone(zone));
        return steppedTo(next == null ? null : next.toInstant());
    }

    @Override
    protected java.util.function.UnaryOperator<@Nullable Instant> nominalFires() {
        return fire -> {
            ZonedDateTime next = cron.next(fire.atZone(zone));
            return next == null ? null : next.toInstant();
        };
    }

    @Override
    public String jobSchedule() {
        return "cron " + expression + " (" + zone.getId() + ")";
    }
}
