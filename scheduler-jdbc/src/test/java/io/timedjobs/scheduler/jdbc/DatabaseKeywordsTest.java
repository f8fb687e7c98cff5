package io.timedjobs.scheduler.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * SQL that only one database runs is written in that database's files only: its package under
 * {@code database} and its folder of schema scripts, each named by the database.
 */
class DatabaseKeywordsTest {

    /** Each database's own keywords, with the databases whose files may hold them. */
    private static final Map<Pattern, Set<String>> KEYWORDS = Map.of(
            Pattern.compile("pg_notify"), Set.of("postgresql"),
            Pattern.compile("RETURNING"), Set.of("postgresql"),
            Pattern.compile("ON CONFLICT"), Set.of("postgresql"),
            Pattern.compile("ANY\\("), Set.of("postgresql", "h2"),
            // a cast of PostgreSQL's, in SQL text (a Java method reference is no SQL)
            Pattern.compile("\"[^\"\\n]*::[^\"\\n]*\""), Set.of("postgresql"),
            Pattern.compile("BIGINT\\[\\]"), Set.of("postgresql"),
            Pattern.compile("ON DUPLICATE KEY"), Set.of("mariadb"),
            Pattern.compile("GET_LOCK"), Set.of("mariadb"),
            Pattern.compile("FINAL TABLE"), Set.of("h2"));

    /** The folders of the databases, as a path's names. */
    private static final Set<String> DATABASES = Set.of("postgresql", "h2", "mariadb");

    /**
     * Every database keyword in the main Java sources is in a file of its own database; in the schema
     * scripts (released, so never edited), in a file of some database.
     */
    @Test
    void shouldKeepEveryDatabaseKeywordInItsDatabasesFiles() throws IOException {
        List<String> misplaced = new ArrayList<>();
        for (Path file : files(Path.of("src/main/java"))) {
            String text = Files.readString(file);
            String database = databaseOf(file);
            KEYWORDS.forEach((keyword, databases) -> {
                Matcher found = keyword.matcher(text);
                if (found.find() && (database == null || !databases.contains(database))) {
                    misplaced.add(file + ": " + found.group() + " (of " + databases + ")");
                }
            });
        }
        for (Path file : files(Path.of("src/main/resources"))) {
            String text = Files.readString(file);
            KEYWORDS.keySet().forEach(keyword -> {
                Matcher found = keyword.matcher(text);
                if (found.find() && databaseOf(file) == null) {
                    misplaced.add(file + ": " + found.group());
                }
            });
        }
        assertThat(misplaced).isEmpty();
    }

    private static List<Path> files(Path root) throws IOException {
        try (Stream<Path> walk = Files.walk(root)) {
            return walk.filter(Files::isRegularFile).toList();
        }
    }

    /** The database whose folder holds {@code file}, or null. */
    private static @Nullable String databaseOf(Path file) {
        for (Path name : file) {
            if (DATABASES.contains(name.toString())) {
                return name.toString();
            }
        }
        return null;
    }
}
