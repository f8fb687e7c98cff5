package io.timedjobs.scheduler.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.timedjobs.scheduler.spring.ReactiveScheduledMethod;
import io.timedjobs.scheduler.spring.ScheduledJobNames;
import java.io.IOException;
import java.net.URL;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.core.io.UrlResource;
import org.springframework.core.io.support.PropertiesLoaderUtils;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.util.StringUtils;

/** The runtime hints cover what the starter reaches by reflection, checked with Spring's predicates. */
class SchedulerRuntimeHintsTest {

    private final RuntimeHints hints = new RuntimeHints();

    SchedulerRuntimeHintsTest() {
        new SchedulerRuntimeHints().registerHints(hints, getClass().getClassLoader());
    }

    /** The health indicator proxy and the health types it calls, of the Boot line on the class path. */
    @Test
    void shouldCoverHealthIndicatorProxyAndHealthTypes() {
        HealthApi api = HealthApi.find(getClass().getClassLoader());
        assertThat(api).isNotNull();
        String indicator = api.healthIndicatorType().getName();
        String packageName = api.healthIndicatorType().getPackageName();

        assertThat(RuntimeHintsPredicates.proxies().forInterfaces(TypeReference.of(indicator)))
                .accepts(hints);
        for (String type : List.of(indicator, packageName + ".Health", packageName + ".Health$Builder")) {
            assertThat(RuntimeHintsPredicates.reflection()
                            .onType(TypeReference.of(type))
                            .withMemberCategory(MemberCategory.INVOKE_PUBLIC_METHODS))
                    .as(type)
                    .accepts(hints);
        }
    }

    /**
     * Every database dialect the services file lists, and each that scheduler-jdbc answers for a
     * product, can be made in a native image: its constructor and the services file are hinted.
     */
    @Test
    void shouldCoverTheDatabaseDialects() throws IOException {
        List<String> listed = new ArrayList<>();
        for (URL url :
                Collections.list(getClass().getClassLoader().getResources(SchedulerRuntimeHints.DIALECT_SERVICES))) {
            try (var in = url.openStream()) {
                new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8)
                        .lines()
                        .map(String::strip)
                        .filter(line -> !line.isEmpty() && !line.startsWith("#"))
                        .forEach(listed::add);
            }
        }
        List<String> answered = List.of("PostgreSQL", "H2", "MariaDB").stream()
                .map(product -> io.timedjobs.scheduler.jdbc.database.JdbcDialect.forProductName(product)
                        .getClass()
                        .getName())
                .toList();
        assertThat(listed).containsExactlyInAnyOrderElementsOf(SchedulerRuntimeHints.DIALECTS);
        assertThat(answered).containsExactlyElementsOf(SchedulerRuntimeHints.DIALECTS);
        assertThat(RuntimeHintsPredicates.resource().forResource(SchedulerRuntimeHints.DIALECT_SERVICES))
                .accepts(hints);
        for (String dialect : SchedulerRuntimeHints.DIALECTS) {
            assertThat(RuntimeHintsPredicates.reflection()
                            .onType(TypeReference.of(dialect))
                            .withMemberCategory(MemberCategory.INVOKE_PUBLIC_CONSTRUCTORS))
                    .as(dialect)
                    .accepts(hints);
        }
    }

    /** Every failure analyzer that spring.factories names can be created. */
    @Test
    void shouldCoverFailureAnalyzers() throws IOException {
        List<String> analyzers = new ArrayList<>();
        for (URL url : Collections.list(getClass().getClassLoader().getResources("META-INF/spring.factories"))) {
            Properties factories = PropertiesLoaderUtils.loadProperties(new UrlResource(url));
            StringUtils.commaDelimitedListToSet(
                            factories.getProperty("org.springframework.boot.diagnostics.FailureAnalyzer", ""))
                    .stream()
                    .map(String::trim)
                    .filter(name -> name.startsWith(SchedulerRuntimeHints.class.getPackageName() + "."))
                    .forEach(analyzers::add);
        }
        assertThat(analyzers).hasSizeGreaterThanOrEqualTo(5);
        for (String analyzer : analyzers) {
            assertThat(RuntimeHintsPredicates.reflection()
                            .onType(TypeReference.of(analyzer))
                            .withMemberCategory(MemberCategory.INVOKE_DECLARED_CONSTRUCTORS))
                    .as(analyzer)
                    .accepts(hints);
        }
    }

    /**
     * The fields of Spring's runnables that the scheduler reads to know a job, without which a
     * native image would run the job on every instance: each runnable present, and each field read.
     */
    @Test
    void shouldCoverTheFieldsOfSpringsRunnablesThatAreRead() throws Exception {
        Map<String, List<String>> read = Map.of(
                ScheduledJobNames.OUTCOME_TRACKER, List.of("runnable"),
                ReactiveScheduledMethod.SUBSCRIBING_RUNNABLE,
                        List.of("publisher", "observationRegistrySupplier", "contextSupplier"));
        for (Map.Entry<String, List<String>> runnable : read.entrySet()) {
            Class<?> type = Class.forName(runnable.getKey());
            for (String field : runnable.getValue()) {
                assertThat(type.getDeclaredField(field)).isNotNull();
            }
            assertThat(RuntimeHintsPredicates.reflection()
                            .onType(TypeReference.of(runnable.getKey()))
                            .withMemberCategory(SchedulerRuntimeHints.FIELD_ACCESS))
                    .as(runnable.getKey())
                    .accepts(hints);
        }
        assertThat(SchedulerRuntimeHints.FIELD_ACCESS.name()).isIn("ACCESS_DECLARED_FIELDS", "DECLARED_FIELDS");
    }

    /** Spring's AOT processing finds the registrar through aot.factories. */
    @Test
    void shouldBeListedInAotFactories() {
        List<RuntimeHintsRegistrar> registrars = SpringFactoriesLoader.forResourceLocation(
                        "META-INF/spring/aot.factories")
                .load(RuntimeHintsRegistrar.class);

        assertThat(registrars).hasAtLeastOneElementOfType(SchedulerRuntimeHints.class);
    }
}
