package io.timedjobs.scheduler.autoconfigure;

import static io.timedjobs.scheduler.autoconfigure.SchedulerProperties.PREFIX;

import java.time.Duration;
import java.util.Objects;

/**
 * Bound once at start-up, then read by the auto-configurations: the {@code timed-jobs.history.*}
 * keys; no type of scheduler-jdbc here, which may be absent. The run history: one record per clustered run and per durable execution (needs
 * scheduler-jdbc and a DataSource), written in the transaction that records the run's end.
 */
public class HistoryProperties {

    /**
     * Whether each clustered run and durable execution leaves a record (job or task, nominal fire,
     * instance, start, duration, outcome, error summary), shown on the page and the endpoint.
     */
    private boolean enabled = true;

    /** How long records are kept, by their start; older ones are pruned in small batches. */
    private Duration retention = Duration.ofDays(7);

    /** Most records kept, the newest; older ones are pruned in small batches. */
    private long maxRows = 100_000;

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public Duration getRetention() {
        return retention;
    }

    public void setRetention(Duration retention) {
        Objects.requireNonNull(retention, PREFIX + ".history.retention");
        if (retention.isNegative() || retention.isZero()) {
            throw new IllegalArgumentException(
                    PREFIX + ".history.retention must be positive (for example 7d), was " + retention);
        }
        this.retention = retention;
    }

    public long getMaxRows() {
        return maxRows;
    }

    public void setMaxRows(long maxRows) {
        if (maxRows < 1) {
            throw new IllegalArgumentException(PREFIX + ".history.max-rows must be at least 1, was " + maxRows);
        }
        this.maxRows = maxRows;
    }
}
