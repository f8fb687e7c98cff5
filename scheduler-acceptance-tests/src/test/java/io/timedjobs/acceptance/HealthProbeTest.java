package io.timedjobs.acceptance;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Test code only. How a probe reads the status of a whole health answer. */
class HealthProbeTest {

    /** A group's status is read at the outermost level, after its components' own statuses. */
    @Test
    void shouldReadTheGroupsStatusNotAComponents() {
        String body = "{\"components\":{\"readinessState\":{\"status\":\"UP\"},\"timedJobs\":{\"details\":"
                + "{\"note\":\"a \\\"status\\\": \\\"UP\\\" in a string\"},\"status\":\"DOWN\"}},\"status\":\"DOWN\"}";
        assertThat(HealthProbe.topLevelStatus(body)).isEqualTo("DOWN");
    }

    /** With the status written first, as Jackson 2 writes it, the same answer. */
    @Test
    void shouldReadTheStatusWrittenFirst() {
        assertThat(HealthProbe.topLevelStatus("{\"status\":\"UP\",\"components\":{\"db\":{\"status\":\"DOWN\"}}}"))
                .isEqualTo("UP");
        assertThat(HealthProbe.topLevelStatus("{\"groups\":[\"liveness\"]}")).isEqualTo("?");
    }
}
