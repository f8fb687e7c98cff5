package io.timedjobs.scheduler.autoconfigure;

import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.util.ClassUtils;

/**
 * Stateless; called once, by {@link ClusterDataSourceCheckAutoConfiguration}, while start-up
 * fails. Says why an application with {@code scheduler-jdbc} has no {@code DataSource}, from its
 * class path, and what to add.
 */
final class MissingDataSource {

    static final String STARTER = "org.springframework.boot:spring-boot-starter-jdbc";

    static final String DRIVERS = "PostgreSQL org.postgresql:postgresql, MariaDB org.mariadb.jdbc:mariadb-java-client,"
            + " MySQL com.mysql:mysql-connector-j, H2 com.h2database:h2";

    /** Boot's DataSource auto-configuration: Spring Boot 4's spring-boot-jdbc, then Spring Boot 3.5's. */
    private static final List<String> BOOT_JDBC = List.of(
            "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
            "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration");

    /** The connection pools Boot builds a DataSource with; without one it builds none. */
    private static final List<String> POOLS = List.of(
            "com.zaxxer.hikari.HikariDataSource",
            "org.apache.tomcat.jdbc.pool.DataSource",
            "org.apache.commons.dbcp2.BasicDataSource",
            "oracle.ucp.jdbc.PoolDataSourceImpl",
            "com.mchange.v2.c3p0.ComboPooledDataSource");

    private MissingDataSource() {}

    static ClusterDataSourceException explain(@Nullable ClassLoader classLoader) {
        return new ClusterDataSourceException(
                "Timed Jobs found no DataSource for its tables: scheduler-jdbc is on the class path, so @Scheduled"
                        + " jobs would run once per fire across instances, but " + reason(classLoader)
                        + ". Without a DataSource every job would run on every instance.",
                "Add " + STARTER + " and your database's driver (" + DRIVERS + "), and set spring.datasource.url"
                        + " (or declare a DataSource bean). To run each job on every instance without a database, on"
                        + " purpose, set " + SchedulerProperties.PREFIX + ".cluster.enabled=false.");
    }

    private static String reason(@Nullable ClassLoader classLoader) {
        if (!anyPresent(BOOT_JDBC, classLoader)) {
            return "Spring Boot's JDBC support (" + STARTER + ") is not on the class path";
        }
        if (!anyPresent(POOLS, classLoader)) {
            return "no connection pool is on the class path (" + STARTER + " brings HikariCP)";
        }
        // with a pool and no URL Spring Boot fails by itself; here its auto-configuration made no DataSource
        return "the application has no DataSource bean (is Spring Boot's DataSourceAutoConfiguration excluded?)";
    }

    private static boolean anyPresent(List<String> classNames, @Nullable ClassLoader classLoader) {
        return classNames.stream().anyMatch(name -> ClassUtils.isPresent(name, classLoader));
    }

    /** Several DataSources, none primary and none marked for the cluster. */
    static ClusterDataSourceException ambiguous() {
        return new ClusterDataSourceException(
                "Timed Jobs found several DataSources and none is primary: it cannot tell which one holds its tables"
                        + " unless one is marked with @TimedJobsDataSource.",
                "Mark the one for the tables with @TimedJobsDataSource (or make one @Primary). To run each job on"
                        + " every instance without a database, on purpose, set " + SchedulerProperties.PREFIX
                        + ".cluster.enabled=false.");
    }
}
