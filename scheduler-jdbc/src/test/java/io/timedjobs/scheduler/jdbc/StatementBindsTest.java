package io.timedjobs.scheduler.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.timedjobs.scheduler.jdbc.database.InstanceSql;
import io.timedjobs.scheduler.jdbc.database.JdbcDialect;
import io.timedjobs.scheduler.jdbc.database.Statement;
import io.timedjobs.scheduler.jdbc.database.TableNames;
import io.timedjobs.scheduler.jdbc.durable.DurableTaskQuery;
import io.timedjobs.scheduler.jdbc.durable.DurableTaskState;
import io.timedjobs.scheduler.jdbc.history.RunHistoryQuery;
import io.timedjobs.scheduler.jdbc.history.RunOutcome;
import io.timedjobs.scheduler.jdbc.history.SkipReason;
import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every statement of every database names as many binds as its SQL has placeholders, walked through
 * each class of statements (the database's own, where it has them) with sample arguments, so that a
 * statement whose binds and placeholders disagree fails here and not in a production run.
 */
class StatementBindsTest {

    /** The classes of statements, each walked for every database. */
    private static final List<String> STATEMENT_CLASSES = List.of(
            "io.timedjobs.scheduler.jdbc.database.JdbcDialect",
            "io.timedjobs.scheduler.jdbc.database.InstanceSql",
            "io.timedjobs.scheduler.jdbc.cluster.JobSql",
            "io.timedjobs.scheduler.jdbc.cluster.CatchUpSql",
            "io.timedjobs.scheduler.jdbc.durable.DurableTaskSql",
            "io.timedjobs.scheduler.jdbc.durable.LockedGroupSql",
            "io.timedjobs.scheduler.jdbc.history.RunHistorySql",
            "io.timedjobs.scheduler.jdbc.history.AbandonedRunSql",
            "io.timedjobs.scheduler.jdbc.schema.SchemaSql");

    private static final List<JdbcDialect> DATABASES =
            List.of(JdbcDialect.POSTGRESQL, JdbcDialect.H2, JdbcDialect.MARIADB);

    /** Sample values of each parameter type a method returning statements takes. */
    private static final Map<Class<?>, List<Object>> SAMPLES = Map.of(
            String.class, List.of("t_sample"),
            int.class, List.of(1, 3),
            boolean.class, List.of(true, false),
            DurableTaskQuery.class,
                    List.of(
                            DurableTaskQuery.all(),
                            DurableTaskQuery.all()
                                    .handler("mail")
                                    .key("k")
                                    .state(DurableTaskState.PENDING)
                                    .dueFrom(Instant.EPOCH)
                                    .dueBefore(Instant.EPOCH.plusSeconds(1))),
            RunHistoryQuery.class,
                    List.of(
                            RunHistoryQuery.all(),
                            RunHistoryQuery.all()
                                    .job("job")
                                    .instance("a")
                                    .outcome(RunOutcome.values()[0], RunOutcome.values())
                                    .from(Instant.EPOCH)
                                    .to(Instant.EPOCH.plusSeconds(1)),
                            RunHistoryQuery.all()
                                    .task("mail")
                                    .skipReason(SkipReason.PAUSED, SkipReason.values())
                                    .firesFrom(Instant.EPOCH)
                                    .firesTo(Instant.EPOCH.plusSeconds(1))
                                    .cursor(7)));

    /**
     * Each statement of each class, for each database, binds exactly as many values as it has
     * placeholders, and every class that builds statements is walked.
     */
    @Test
    void shouldNameOneBindPerPlaceholderInEveryStatementOfEveryDatabase() throws Exception {
        List<String> disagreeing = new ArrayList<>();
        Set<String> walkedClasses = new TreeSet<>();
        int walked = 0;
        for (JdbcDialect dialect : DATABASES) {
            for (String className : STATEMENT_CLASSES) {
                Class<?> type = Class.forName(className);
                Object statements = instance(type, dialect);
                for (Class<?> walkedType = statements == null ? type : statements.getClass();
                        walkedType != Object.class;
                        walkedType = walkedType.getSuperclass()) {
                    walkedClasses.add(walkedType.getName());
                }
                for (Method method : methods(statements == null ? type : statements.getClass())) {
                    if (method.getReturnType() != Statement.class || method.isSynthetic()) {
                        continue;
                    }
                    method.setAccessible(true);
                    for (Object[] args : arguments(method.getParameterTypes())) {
                        Statement statement = (Statement) method.invoke(statements, args);
                        if (statement == null) {
                            continue;
                        }
                        walked++;
                        if (statement.placeholders() != statement.binds().size()) {
                            disagreeing.add(dialect + " " + type.getSimpleName() + "." + method.getName() + ": "
                                    + statement.placeholders() + " placeholders, binds " + statement.binds() + " in "
                                    + statement.sql());
                        }
                    }
                }
            }
        }
        assertThat(walked).isGreaterThan(50);
        assertThat(disagreeing).isEmpty();
        assertThat(walkedClasses).containsAll(buildingClasses());
    }

    /** The methods of {@code type} and its superclasses that are not overridden. */
    private static List<Method> methods(Class<?> type) {
        List<Method> methods = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (Class<?> at = type; at != Object.class; at = at.getSuperclass()) {
            for (Method method : at.getDeclaredMethods()) {
                if (seen.add(method.getName() + List.of(method.getParameterTypes()))) {
                    methods.add(method);
                }
            }
        }
        return methods;
    }

    /** Every main class that builds statements. */
    private static List<String> buildingClasses() throws IOException {
        Path main = Path.of("src/main/java");
        List<String> building;
        try (Stream<Path> files = Files.walk(main)) {
            building = files.filter(file -> file.toString().endsWith(".java"))
                    .filter(file -> !file.endsWith("Statement.java"))
                    .filter(StatementBindsTest::buildsStatements)
                    .map(file ->
                            main.relativize(file).toString().replace('/', '.').replaceAll("\\.java$", ""))
                    .toList();
        }
        return building;
    }

    private static boolean buildsStatements(Path file) {
        try {
            String text = Files.readString(file);
            return text.contains("Statement.of(") || text.contains("new Statement(");
        } catch (IOException ex) {
            throw new IllegalStateException(ex);
        }
    }

    /** The statements of {@code dialect}'s database: by the class's {@code of}, where it has one. */
    private static Object instance(Class<?> type, JdbcDialect dialect) throws Exception {
        if (type == JdbcDialect.class) {
            return dialect;
        }
        for (Method factory : type.getDeclaredMethods()) {
            if (factory.getName().equals("of") && Modifier.isStatic(factory.getModifiers())) {
                factory.setAccessible(true);
                return factory.invoke(null, collaborators(factory.getParameterTypes(), dialect));
            }
        }
        for (Constructor<?> constructor : type.getDeclaredConstructors()) {
            if (Modifier.isPrivate(constructor.getModifiers())) {
                return null; // static statements only
            }
            constructor.setAccessible(true);
            return constructor.newInstance(collaborators(constructor.getParameterTypes(), dialect));
        }
        throw new IllegalStateException("No constructor: " + type);
    }

    private static Object[] collaborators(Class<?>[] types, JdbcDialect dialect) {
        Object[] args = new Object[types.length];
        for (int i = 0; i < types.length; i++) {
            args[i] = collaborator(types[i], dialect);
        }
        return args;
    }

    private static Object collaborator(Class<?> type, JdbcDialect dialect) {
        if (type == JdbcDialect.class) {
            return dialect;
        }
        if (type == TableNames.class) {
            return TableNames.defaults();
        }
        if (type == InstanceSql.class) {
            return new InstanceSql(dialect, TableNames.defaults());
        }
        if (type.getName().equals("io.timedjobs.scheduler.jdbc.durable.DurableTaskSql")) {
            try {
                Method of = type.getDeclaredMethod("of", JdbcDialect.class, TableNames.class);
                of.setAccessible(true);
                return of.invoke(null, dialect, TableNames.defaults());
            } catch (ReflectiveOperationException ex) {
                throw new IllegalStateException(ex);
            }
        }
        throw new IllegalStateException("No sample collaborator of " + type);
    }

    /** Every combination of the sample values of {@code types}. */
    private static List<Object[]> arguments(Class<?>[] types) {
        List<Object[]> combinations = new ArrayList<>();
        combinations.add(new Object[types.length]);
        for (int i = 0; i < types.length; i++) {
            List<Object> samples = SAMPLES.get(types[i]);
            if (samples == null) {
                throw new IllegalStateException("No sample value of " + types[i]);
            }
            List<Object[]> next = new ArrayList<>();
            for (Object[] combination : combinations) {
                for (Object sample : samples) {
                    Object[] extended = combination.clone();
                    extended[i] = sample;
                    next.add(extended);
                }
            }
            combinations = next;
        }
        return combinations;
    }
}
