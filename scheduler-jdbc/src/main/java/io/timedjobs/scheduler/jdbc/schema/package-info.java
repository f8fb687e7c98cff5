/**
 * The Timed Jobs tables: {@link io.timedjobs.scheduler.jdbc.schema.SchemaInitializer} creates or
 * checks them at start-up with the script of the database's dialect, found beside this package's
 * classes as {@code io/timedjobs/scheduler/jdbc/schema/<dialect>/V1__timed_jobs.sql}.
 */
@NullMarked
package io.timedjobs.scheduler.jdbc.schema;

import org.jspecify.annotations.NullMarked;
