package io.timedjobs.scheduler.boot3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/** Start-up errors in a Spring Boot 3.5 application get the starter's failure analyses. */
@ExtendWith(OutputCaptureExtension.class)
class Boot35StartupFailureTest {

    private static void startExpectingFailure(String property) {
        assertThatThrownBy(() -> new SpringApplicationBuilder(PlainApplication.class)
                        .web(WebApplicationType.NONE)
                        .properties(property)
                        .run()
                        .close())
                .isInstanceOf(Exception.class);
    }

    /** A misspelled key stops start-up, named. */
    @Test
    void shouldNameMisspelledKey(CapturedOutput output) {
        startExpectingFailure("timed-jobs.pool-sise=4");

        assertThat(output).contains("APPLICATION FAILED TO START").contains("timed-jobs.pool-sise");
    }

    /** A bad misfire policy lists the choices as configured. */
    @Test
    void shouldListMisfirePolicies(CapturedOutput output) {
        startExpectingFailure("timed-jobs.misfire-policy=sometimes");

        assertThat(output).contains("APPLICATION FAILED TO START").contains("catch-up, skip");
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class PlainApplication {}
}
