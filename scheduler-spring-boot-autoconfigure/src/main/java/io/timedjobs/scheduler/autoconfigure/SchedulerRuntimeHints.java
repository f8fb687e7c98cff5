package io.timedjobs.scheduler.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;
import org.springframework.util.ClassUtils;

/**
 * What the starter reaches by reflection, for Spring AOT and native images: Spring Boot's health
 * types, which {@link HealthApi} calls by name and proxies, and the failure analyzers that
 * {@code META-INF/spring.factories} names. Called by Spring's AOT processing only.
 */
final class SchedulerRuntimeHints implements RuntimeHintsRegistrar {

    @Override
    public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
        for (String packageName : new String[] {HealthApi.BOOT_4_PACKAGE, HealthApi.BOOT_3_PACKAGE}) {
            String indicator = packageName + ".HealthIndicator";
            if (!ClassUtils.isPresent(indicator, classLoader)) {
                continue;
            }
            hints.proxies().registerJdkProxy(TypeReference.of(indicator));
            hints.reflection()
                    .registerType(TypeReference.of(indicator), MemberCategory.INVOKE_PUBLIC_METHODS)
                    .registerType(TypeReference.of(packageName + ".Health"), MemberCategory.INVOKE_PUBLIC_METHODS)
                    .registerType(
                            TypeReference.of(packageName + ".Health$Builder"), MemberCategory.INVOKE_PUBLIC_METHODS);
        }
        hints.reflection()
                .registerType(SchedulerPropertyValueFailureAnalyzer.class, MemberCategory.INVOKE_DECLARED_CONSTRUCTORS)
                .registerType(ReplacedSchedulerFailureAnalyzer.class, MemberCategory.INVOKE_DECLARED_CONSTRUCTORS)
                .registerType(ClusterDataSourceFailureAnalyzer.class, MemberCategory.INVOKE_DECLARED_CONSTRUCTORS)
                .registerType(SchemaPrivilegeFailureAnalyzer.class, MemberCategory.INVOKE_DECLARED_CONSTRUCTORS);
    }
}
