/**
 * Clustered {@code @Scheduled} jobs: each fire of a job runs once across the instances on one
 * database. {@link io.timedjobs.scheduler.jdbc.cluster.ClusteredJobs} is the entry point (a Spring
 * {@code SchedulingConfigurer}); {@code JobSql} holds the SQL of
 * the jobs and fires tables. Everything else is package-private.
 */
@NullMarked
package io.timedjobs.scheduler.jdbc.cluster;

import org.jspecify.annotations.NullMarked;
