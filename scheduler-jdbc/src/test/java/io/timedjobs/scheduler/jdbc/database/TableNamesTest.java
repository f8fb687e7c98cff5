package io.timedjobs.scheduler.jdbc.database;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TableNamesTest {

    /** Table names are the prefix followed by a fixed suffix. */
    @Test
    void shouldDeriveTableNamesFromThePrefix() {
        TableNames names = new TableNames("app_");
        assertThat(names.instances()).isEqualTo("app_instances");
        assertThat(names.jobs()).isEqualTo("app_jobs");
        assertThat(names.fires()).isEqualTo("app_fires");
        assertThat(names.tasks()).isEqualTo("app_tasks");
        assertThat(names.all())
                .containsExactly(
                        "app_instances",
                        "app_jobs",
                        "app_fires",
                        "app_tasks",
                        "app_job_definitions",
                        "app_job_carriers",
                        "app_run_history");
        assertThat(TableNames.defaults().fires()).isEqualTo("timed_jobs_fires");
    }

    /** Anything that is not a plain identifier fails, naming the property. */
    @ParameterizedTest
    @ValueSource(
            strings = {
                "",
                "1abc",
                "a-b",
                "a b",
                "x;DROP TABLE y;--",
                "a\"b",
                "sch.tab_",
                "abcdefghijabcdefghijabcdefghijabcdefghijk"
            })
    void shouldRefuseAPrefixThatIsNotAPlainIdentifier(String prefix) {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new TableNames(prefix))
                .withMessageContaining(TableNames.PREFIX_PROPERTY)
                .withMessageContaining("plain SQL identifier");
    }

    /** The scripts are rewritten for another prefix, and left alone for the default one. */
    @Test
    void shouldRewriteScriptsForAnotherPrefix() {
        String script =
                "CREATE TABLE timed_jobs_fires (a INT); CREATE INDEX timed_jobs_fires_a ON timed_jobs_fires (a);";
        assertThat(new TableNames("_X1_").rewrite(script))
                .isEqualTo("CREATE TABLE _X1_fires (a INT); CREATE INDEX _X1_fires_a ON _X1_fires (a);");
        assertThat(TableNames.defaults().rewrite(script)).isSameAs(script);
    }
}
