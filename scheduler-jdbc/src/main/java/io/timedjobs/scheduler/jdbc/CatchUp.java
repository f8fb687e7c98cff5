package io.timedjobs.scheduler.jdbc;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * For application code: on a clustered {@code @Scheduled} cron or fixed-rate method, what the
 * cluster does with the fires that fell while no instance ran the job (a downtime of every
 * instance, or of the database). Without it, or with {@link Policy#SKIP}, missed fires are not run,
 * as before. The keys {@code timed-jobs.cluster.jobs[<job name>].catch-up.policy}, {@code .window}
 * and {@code .max-fires} say the same by job name, and win over the annotation part by part.
 *
 * <p>Decided once across the cluster: a per-job watermark in the jobs table, moved forward by
 * compare-and-set in the transaction that records each fire, makes each missed fire run at most
 * once however many instances start together. Fixed-delay jobs refuse a policy other than {@code
 * SKIP} at start-up: they have no grid of nominal fires to miss (their next fire, when late, runs
 * once anyway). The policy and its one decision are {@link CatchUpPolicy}'s. See
 * docs/several-instances.md, "Catch-up after downtime".
 *
 * <p><b>NOTE:</b> {@code SKIP} is the default here, while the core engine's {@code MisfirePolicy}
 * defaults to {@code CATCH_UP}: they govern different things. This annotation governs the fires
 * missed while no instance ran the job; {@code MisfirePolicy}, a fixed-rate task of a running
 * scheduler that fell behind its own rhythm, which never applies to clustered jobs.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface CatchUp {

    /** The policy: {@link Policy#ONCE} or {@link Policy#EACH}; {@link Policy#SKIP} is the default. */
    Policy value();

    /**
     * How far back, from the moment an instance plans the catch-up, a missed fire may lie to be run,
     * as an ISO-8601 duration; default one day.
     */
    String window() default "P1D";

    /** The most missed fires {@link Policy#EACH} runs: the latest ones in the window; default 24. */
    int maxFires() default 24;

    /** What to do with missed fires. */
    enum Policy {
        /** Missed fires are not run: the behaviour of a job without a policy. */
        SKIP,
        /** The latest missed fire within the window runs once, for all of them. */
        ONCE,
        /**
         * Each missed fire within the window runs, oldest first, at most {@link #maxFires()} (the
         * latest), each with its own nominal instant.
         */
        EACH
    }
}
