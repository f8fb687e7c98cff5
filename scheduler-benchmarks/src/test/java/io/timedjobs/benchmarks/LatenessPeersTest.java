package io.timedjobs.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Where the floor control runs among the LATENESS peers. */
class LatenessPeersTest {

    /** Not named, the floor runs first, so that each round pairs the peers with a floor run. */
    @Test
    void shouldPutFloorFirstWhenNotNamed() {
        assertThat(Lateness.peers("lf,stpe")).containsExactly("floor", "lf", "stpe");
    }

    /** Named, the floor keeps its place, so that a caller can rotate it with the others. */
    @Test
    void shouldKeepFloorWhereNamed() {
        assertThat(Lateness.peers("stpe,floor,lf")).containsExactly("stpe", "floor", "lf");
    }

    /** A peer this JVM cannot build is left out, as in every other scenario. */
    @Test
    void shouldDropUnknownPeer() {
        assertThat(Lateness.peers("lf,no-such-peer")).containsExactly("floor", "lf");
    }
}
