package io.timedjobs.scheduler.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.core.io.support.SpringFactoriesLoader;

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

    /** The failure analyzers that spring.factories names can be created. */
    @Test
    void shouldCoverFailureAnalyzers() {
        for (Class<?> analyzer : List.of(
                SchedulerPropertyValueFailureAnalyzer.class,
                ReplacedSchedulerFailureAnalyzer.class,
                ClusterDataSourceFailureAnalyzer.class,
                SchemaPrivilegeFailureAnalyzer.class)) {
            assertThat(RuntimeHintsPredicates.reflection()
                            .onType(analyzer)
                            .withMemberCategory(MemberCategory.INVOKE_DECLARED_CONSTRUCTORS))
                    .as(analyzer.getName())
                    .accepts(hints);
        }
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
