/**
 * Several instances on one database, on plain Spring JDBC: the annotations application code puts
 * on its beans, and {@link io.timedjobs.scheduler.jdbc.CatchUpPolicy}, the catch-up that clustered
 * jobs and recurring durable tasks share. The features live in sub-packages: {@code cluster} (each {@code @Scheduled} fire
 * runs once across instances), {@code durable} (durable tasks), {@code schema} (the tables) and
 * {@code database} (the database, instance registry and clock they share).
 */
@NullMarked
package io.timedjobs.scheduler.jdbc;

import org.jspecify.annotations.NullMarked;
