/**
 * Durable tasks: one-off and recurring tasks stored in the application's database, claimed ahead of
 * their due time by one instance and started at their instant by its in-memory engine.
 *
 * <p>The entry points are {@link io.timedjobs.scheduler.jdbc.durable.DurableTasks} (schedule,
 * reschedule, cancel, query) and {@link io.timedjobs.scheduler.jdbc.durable.DurableTaskHandler} (what
 * runs). Everything else is wiring.
 */
@NullMarked
package io.timedjobs.scheduler.jdbc.durable;

import org.jspecify.annotations.NullMarked;
