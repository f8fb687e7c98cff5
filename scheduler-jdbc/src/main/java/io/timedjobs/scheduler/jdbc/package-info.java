/**
 * Several instances on one database: the tables, the database clock and the instance registry
 * that clustered {@code @Scheduled} jobs and durable tasks share, on plain Spring JDBC.
 */
@NullMarked
package io.timedjobs.scheduler.jdbc;

import org.jspecify.annotations.NullMarked;
