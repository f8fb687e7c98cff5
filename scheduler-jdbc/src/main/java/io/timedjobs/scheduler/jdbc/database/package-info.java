/**
 * The database the instances coordinate through, shared by clustered jobs and durable tasks: the
 * data source with its {@link io.timedjobs.scheduler.jdbc.database.JdbcDialect} (the only place
 * where databases differ) and table names, this instance's row in the instances table and the
 * heartbeat that keeps it alive, the {@link io.timedjobs.scheduler.jdbc.database.LeaseRule} that
 * times the heartbeat, the lease renewal of durable claims and every take-over, this instance's view of the database's clock, and the log of
 * database outages.
 */
@NullMarked
package io.timedjobs.scheduler.jdbc.database;

import org.jspecify.annotations.NullMarked;
