package io.timedjobs.benchmarks.startup;

import java.util.List;

/**
 * Immutable. One application of the STARTUP benchmark: its main class (in {@code startup.apps}),
 * the roots of its class path in the module's dependency tree, the database it needs, its
 * arguments ({@code --key=value}, with {@code ${url}} standing for the database's URL), and whether
 * each measured start follows a predecessor of the same variant killed with SIGKILL once ready.
 */
record Variant(String name, String app, List<String> roots, Database database, List<String> args, boolean afterKill) {

    /** What a variant's application connects to. */
    enum Database {
        NONE,
        H2,
        POSTGRESQL
    }

    static final String BOOT_STARTER = "org.springframework.boot:spring-boot-starter";
    static final String BOOT_JDBC = "org.springframework.boot:spring-boot-starter-jdbc";
    static final String OUR_STARTER = "io.timedjobs:scheduler-spring-boot-starter";
    static final String OUR_JDBC = "io.timedjobs:scheduler-jdbc";
    static final String POSTGRES_DRIVER = "org.postgresql:postgresql";
    static final String H2_URL = "jdbc:h2:mem:startup;DB_CLOSE_DELAY=-1";

    /** Every variant, Boot's own scheduler first (the base of every ratio). */
    static List<Variant> all() {
        List<String> ourPostgres = List.of(OUR_STARTER, BOOT_STARTER, OUR_JDBC, BOOT_JDBC, POSTGRES_DRIVER);
        List<String> ourPostgresArgs =
                List.of("--spring.datasource.url=${url}", "--timed-jobs.jdbc.initialize-schema=always");
        return List.of(
                new Variant("boot", "ScheduledApp", List.of(BOOT_STARTER), Database.NONE, List.of(), false),
                new Variant(
                        "timed-jobs",
                        "ScheduledApp",
                        List.of(OUR_STARTER, BOOT_STARTER),
                        Database.NONE,
                        List.of(),
                        false),
                new Variant(
                        "timed-jobs-jdbc-h2",
                        "ScheduledApp",
                        List.of(OUR_STARTER, BOOT_STARTER, OUR_JDBC, BOOT_JDBC, "com.h2database:h2"),
                        Database.H2,
                        List.of("--spring.datasource.url=" + H2_URL),
                        false),
                new Variant(
                        "timed-jobs-jdbc-pg", "ScheduledApp", ourPostgres, Database.POSTGRESQL, ourPostgresArgs, false),
                new Variant(
                        "timed-jobs-jdbc-pg-after-kill",
                        "ScheduledApp",
                        ourPostgres,
                        Database.POSTGRESQL,
                        ourPostgresArgs,
                        true),
                new Variant(
                        "timed-jobs-jdbc-pg-named-after-kill",
                        "ScheduledApp",
                        ourPostgres,
                        Database.POSTGRESQL,
                        concat(ourPostgresArgs, "--timed-jobs.cluster.instance-name=startup-bench"),
                        true),
                new Variant(
                        "db-scheduler",
                        "DbSchedulerApp",
                        List.of(
                                "com.github.kagkarlsson:db-scheduler-spring-boot-starter",
                                BOOT_STARTER,
                                BOOT_JDBC,
                                POSTGRES_DRIVER),
                        Database.POSTGRESQL,
                        List.of("--spring.datasource.url=${url}"),
                        false),
                new Variant(
                        "shedlock",
                        "ShedLockApp",
                        List.of(
                                BOOT_STARTER,
                                "net.javacrumbs.shedlock:shedlock-spring",
                                "net.javacrumbs.shedlock:shedlock-provider-jdbc-template",
                                BOOT_JDBC,
                                POSTGRES_DRIVER),
                        Database.POSTGRESQL,
                        List.of("--spring.datasource.url=${url}"),
                        false),
                new Variant(
                        "quartz",
                        "QuartzApp",
                        List.of(
                                "org.springframework.boot:spring-boot-starter-quartz",
                                "org.springframework.boot:spring-boot-quartz",
                                BOOT_STARTER,
                                BOOT_JDBC,
                                POSTGRES_DRIVER),
                        Database.POSTGRESQL,
                        List.of(
                                "--spring.datasource.url=${url}",
                                "--spring.quartz.job-store-type=jdbc",
                                "--spring.quartz.jdbc.initialize-schema=never",
                                "--spring.quartz.properties.org.quartz.jobStore.isClustered=true",
                                "--spring.quartz.properties.org.quartz.scheduler.instanceId=AUTO",
                                "--spring.quartz.properties.org.quartz.jobStore.driverDelegateClass="
                                        + "org.quartz.impl.jdbcjobstore.PostgreSQLDelegate"),
                        false),
                new Variant(
                        "jobrunr",
                        "JobRunrApp",
                        List.of(
                                "org.jobrunr:jobrunr",
                                BOOT_STARTER,
                                BOOT_JDBC,
                                POSTGRES_DRIVER,
                                "com.fasterxml.jackson.core:jackson-databind",
                                "com.fasterxml.jackson.datatype:jackson-datatype-jsr310"),
                        Database.POSTGRESQL,
                        List.of("--spring.datasource.url=${url}"),
                        false));
    }

    private static List<String> concat(List<String> list, String more) {
        return java.util.stream.Stream.concat(list.stream(), java.util.stream.Stream.of(more))
                .toList();
    }
}
