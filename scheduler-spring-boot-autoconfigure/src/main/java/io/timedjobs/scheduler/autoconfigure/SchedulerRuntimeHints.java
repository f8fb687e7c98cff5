package io.timedjobs.scheduler.autoconfigure;

import io.timedjobs.scheduler.spring.ReactiveScheduledMethod;
import io.timedjobs.scheduler.spring.ScheduledJobNames;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;
import org.springframework.util.ClassUtils;

/**
 * What the starter reaches by reflection, for Spring AOT and native images: Spring Boot's health
 * types, which {@link HealthApi} calls by name and proxies, the failure analyzers that
 * {@code META-INF/spring.factories} names, and the fields of Spring's own runnables that the
 * scheduler reads to know a {@code @Scheduled} job (without them a native image would not
 * recognize the job, and run it on every instance), and the database dialects of {@code
 * scheduler-jdbc}, found as services. Called by Spring's AOT processing only.
 */
final class SchedulerRuntimeHints implements RuntimeHintsRegistrar {

    /**
     * Spring's runnables whose fields are read by reflection: the runnable that wraps a task to
     * track its outcome (its {@code runnable}) and the runnable of a reactive method (its publisher
     * and suppliers). Registered by name where present: a Spring version without one has nothing
     * to read.
     */
    static final List<String> RUNNABLES_READ =
            List.of(ScheduledJobNames.OUTCOME_TRACKER, ReactiveScheduledMethod.SUBSCRIBING_RUNNABLE);

    /**
     * Leave to read and write declared fields: {@code ACCESS_DECLARED_FIELDS} from Spring Framework
     * 7, {@code DECLARED_FIELDS} before it; looked up by name so that one build serves both lines.
     */
    static final MemberCategory FIELD_ACCESS = Arrays.stream(MemberCategory.values())
            .filter(category -> category.name().equals("ACCESS_DECLARED_FIELDS"))
            .findFirst()
            .orElseGet(() -> MemberCategory.valueOf("DECLARED_FIELDS"));

    /**
     * The database dialects of {@code scheduler-jdbc}, which it finds through {@code
     * META-INF/services} (or, failing that, makes by these names), when it is on the class path.
     */
    static final List<String> DIALECTS = List.of(
            "io.timedjobs.scheduler.jdbc.database.postgresql.PostgresDialect",
            "io.timedjobs.scheduler.jdbc.database.h2.H2Dialect",
            "io.timedjobs.scheduler.jdbc.database.mariadb.MariaDbDialect");

    /** The services file that lists the dialects. */
    static final String DIALECT_SERVICES = "META-INF/services/io.timedjobs.scheduler.jdbc.database.JdbcDialect";

    @Override
    public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
        if (ClassUtils.isPresent("io.timedjobs.scheduler.jdbc.database.JdbcDialect", classLoader)) {
            hints.resources().registerPattern(DIALECT_SERVICES);
            for (String dialect : DIALECTS) {
                hints.reflection().registerType(TypeReference.of(dialect), MemberCategory.INVOKE_PUBLIC_CONSTRUCTORS);
            }
        }
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
                .registerType(SchemaPrivilegeFailureAnalyzer.class, MemberCategory.INVOKE_DECLARED_CONSTRUCTORS)
                .registerType(DuplicateInstanceNameFailureAnalyzer.class, MemberCategory.INVOKE_DECLARED_CONSTRUCTORS);
        for (String runnable : RUNNABLES_READ) {
            if (ClassUtils.isPresent(runnable, classLoader)) {
                hints.reflection().registerType(TypeReference.of(runnable), FIELD_ACCESS);
            }
        }
    }
}
