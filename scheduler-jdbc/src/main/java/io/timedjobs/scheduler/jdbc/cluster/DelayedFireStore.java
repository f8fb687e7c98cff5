package io.timedjobs.scheduler.jdbc.cluster;

import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.ClusterInstance;
import io.timedjobs.scheduler.jdbc.database.JdbcDialect;
import io.timedjobs.scheduler.jdbc.history.RunHistory;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Thread-safe (stateless); used by {@link FixedDelayJob} through {@link JobStore#delayed()}. The
 * statements of fixed-delay jobs, whose next fire lives in the job's row rather than in fire
 * records: claimed with the run lease, set again by the run's completion, and set by another
 * instance when the run's holder died or ran past its maximum run time.
 */
final class DelayedFireStore {

    private final JdbcTemplate jdbc;
    private final JdbcDialect dialect;
    private final ClusterInstance instance;
    private final JobSql sql;
    private final JobStore jobs;
    private final RunHistory history;

    DelayedFireStore(ClusterDatabase database, ClusterInstance instance, JobStore jobs, RunHistory history) {
        this.jdbc = database.jdbc();
        this.dialect = database.dialect();
        this.instance = instance;
        this.sql = JobSql.of(database.dialect(), database.tables(), instance.sql());
        this.jobs = jobs;
        this.history = history;
    }

    /**
     * Claims the fixed-delay fire due at {@code nextFireAt}: succeeds only if the row still holds
     * that next fire and the definition {@code definitionKey}, it is due by the database's clock
     * (give or take {@code early}), the job is not paused, and no live run holds the lease. The claim
     * clears the next fire (it is set again at completion) and takes the lease until {@code
     * maxRunTime} from now.
     */
    boolean claimDelayedFire(
            String job, String definitionKey, Instant nextFireAt, Duration early, Duration maxRunTime) {
        boolean claimed = jdbc.update(
                        sql.claimDelayedFire().sql(),
                        instance.name(),
                        maxRunTime.toMillis(),
                        job,
                        dialect.bind(nextFireAt),
                        early.toMillis(),
                        definitionKey,
                        instance.name(),
                        instance.deadAfterMillisParameter())
                == 1;
        if (claimed) {
            jobs.took(job);
        }
        return claimed;
    }

    /**
     * Ends this instance's fixed-delay run: the next fire is the database's time plus the delay.
     * Returns false, changing nothing, when the run is no longer this instance's (see {@link
     * JobSql#completeDelayedFire()}). When the job's definition changed meanwhile, the lease is
     * released and the next fire the new definition set stands.
     */
    boolean completeDelayedFire(String job, String definitionKey, Duration delay) {
        try {
            return jdbc.update(
                            sql.completeDelayedFire().sql(),
                            definitionKey,
                            delay.toMillis(),
                            job,
                            instance.name(),
                            definitionKey)
                    == 1;
        } finally {
            jobs.released(job); // after the write: a stop waiting for no lease held waits for it
        }
    }

    /**
     * As {@link #completeDelayedFire(String, String, Duration)}, recording the run in the same
     * transaction, whether or not the completion was accepted.
     */
    boolean completeDelayedFire(
            String job,
            String definitionKey,
            Duration delay,
            Instant fire,
            long durationNanos,
            @Nullable Throwable failure) {
        try {
            return history.completeFenced(
                    sql.completeDelayedFire().sql(),
                    Arrays.asList(definitionKey, delay.toMillis(), job, instance.name(), definitionKey),
                    () -> completeDelayedFire(job, definitionKey, delay),
                    jobs.run(job, fire, durationNanos, failure),
                    true);
        } finally {
            jobs.released(job);
        }
    }

    /**
     * Ends a fixed-delay run whose holder died or ran past its maximum run time, as if it had
     * completed now: the next fire is the database's time plus the delay; the fire it held is not
     * run again. Returns whether it did (false when the run is alive or another instance was first).
     */
    boolean expireDelayedRun(String job, String owner, Duration delay) {
        return jdbc.update(
                        sql.expireDelayedRun().sql(),
                        delay.toMillis(),
                        job,
                        owner,
                        instance.name(),
                        instance.deadAfterMillisParameter())
                == 1;
    }
}
