package io.timedjobs.scheduler.jdbc.database;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URL;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Where the dialects come from: the services file, and the built-in ones without it. */
class SupportedDatabasesTest {

    private static final String SERVICES = "META-INF/services/" + JdbcDialect.class.getName();

    /** The services file lists the three built-in dialects, in the order product names are tried. */
    @Test
    void shouldFindTheBuiltInDialectsAsServices() {
        assertThat(SupportedDatabases.load(JdbcDialect.class.getClassLoader()))
                .map(dialect -> dialect.getClass().getName())
                .containsExactlyElementsOf(SupportedDatabases.BUILT_IN);
    }

    /**
     * A packaging that dropped the services file (a jar merged without its service files) still has
     * the built-in dialects, made by their names.
     */
    @Test
    void shouldMakeTheBuiltInDialectsWhereTheServicesFileIsMissing() {
        ClassLoader withoutServices = new ClassLoader(JdbcDialect.class.getClassLoader()) {
            @Override
            public Enumeration<URL> getResources(String name) throws IOException {
                return name.equals(SERVICES) ? Collections.emptyEnumeration() : super.getResources(name);
            }
        };
        assertThat(withoutServices.getResource(SERVICES)).isNotNull(); // only the enumeration hides it
        List<JdbcDialect> found = SupportedDatabases.load(withoutServices);
        assertThat(found)
                .map(dialect -> dialect.getClass().getName())
                .containsExactlyElementsOf(SupportedDatabases.BUILT_IN);
        assertThat(found.get(0).isProduct("postgresql")).isTrue();
    }
}
