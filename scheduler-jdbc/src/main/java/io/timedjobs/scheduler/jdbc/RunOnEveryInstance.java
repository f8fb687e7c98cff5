package io.timedjobs.scheduler.jdbc;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * For application code: on a {@code @Scheduled} method (or on its class, for all of them), runs
 * the job on every instance at every fire, as without {@code scheduler-jdbc}, instead of once per
 * fire across instances. For work that is local to each instance, such as refreshing an in-memory
 * cache. The property {@code timed-jobs.cluster.local-jobs} does the same by job name.
 */
@Target({ElementType.METHOD, ElementType.TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface RunOnEveryInstance {}
