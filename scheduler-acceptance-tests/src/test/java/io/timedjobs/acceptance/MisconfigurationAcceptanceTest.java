package io.timedjobs.acceptance;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Test code only. An application with the starter, {@code scheduler-jdbc}, a driver and {@code
 * spring.datasource.url}, but without {@code spring-boot-starter-jdbc} (so without Boot's
 * DataSource auto-configuration and Hikari), as a user gets it who follows the guides and misses
 * that starter.
 */
class MisconfigurationAcceptanceTest {

    /** What {@code spring-boot-starter-jdbc} brings that the rest of the application does not. */
    private static final List<String> STARTER_JDBC_JARS = List.of(
            "spring-boot-starter-jdbc-",
            "spring-boot-jdbc-",
            "spring-boot-sql-",
            "spring-boot-transaction-",
            "spring-boot-persistence-",
            "HikariCP-");

    private final List<AppInstance> instances = new ArrayList<>();

    @AfterEach
    void killInstances() {
        for (AppInstance instance : instances) {
            instance.close();
        }
    }

    /** Without a DataSource, start-up is refused with a failure analysis that names spring-boot-starter-jdbc. */
    @Test
    void shouldRefuseToStartWithoutDataSource() throws InterruptedException {
        AppInstance app = start("no-starter-jdbc", List.of());

        String outcome = app.awaitLine(
                Pattern.compile("APPLICATION FAILED TO START|" + AppInstance.STARTED.pattern()),
                Duration.ofSeconds(90));

        if (!outcome.contains("APPLICATION FAILED TO START")) {
            String run = app.awaitLine(Pattern.compile("RUN job="), Duration.ofSeconds(10));
            throw new AssertionError(app.name() + " started without a DataSource instead of failing, and runs its"
                    + " jobs on its own, as every instance would:\n" + run + "\n(log: " + app.log() + ")");
        }
        assertThat(app.awaitExit(Duration.ofSeconds(30))).as("exit code").isNotZero();
        assertThat(String.join("\n", app.lines()))
                .as("the failure analysis of %s", app.log())
                .contains("spring-boot-starter-jdbc");
    }

    /** With the cluster turned off on purpose, it starts and says at INFO that jobs run on every instance. */
    @Test
    void shouldStartAndSayJobsRunOnEveryInstanceWhenClusterIsOff() {
        AppInstance app = start("no-starter-jdbc-cluster-off", List.of("--timed-jobs.cluster.enabled=false"));

        app.awaitStarted();

        List<LogLine> entries = app.entries();
        assertThat(entries.stream()
                        .filter(entry ->
                                entry.level().equals("INFO") && !entry.text().contains("RUN job="))
                        .map(LogLine::message)
                        .toList())
                .as("the INFO lines of %s: one should say that jobs run on every instance", app.log())
                .anyMatch(message -> message.contains("every instance"));
        assertThat(entries).as("WARN or worse in %s", app.log()).noneMatch(LogLine::isAlarming);
    }

    private AppInstance start(String name, List<String> extra) {
        List<String> args = new ArrayList<>(List.of("--spring.datasource.url=jdbc:postgresql://127.0.0.1:"
                + AcceptanceDatabases.postgresPort() + "/postgres?user=postgres"));
        args.addAll(extra);
        AppInstance app = AppInstance.start(name, args, MisconfigurationAcceptanceTest::withoutStarterJdbc);
        instances.add(app);
        return app;
    }

    private static boolean withoutStarterJdbc(String entry) {
        String file = Path.of(entry).getFileName().toString();
        return STARTER_JDBC_JARS.stream().noneMatch(file::startsWith);
    }
}
