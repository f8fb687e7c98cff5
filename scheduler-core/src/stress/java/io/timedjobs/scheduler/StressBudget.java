package io.timedjobs.scheduler;

import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.StressOptions;

/**
 * Test code only: the size of every stress run, in one place. A build runs each structure for a
 * few seconds; {@code -Dtimedjobs.stress.scale=N} (the {@code stress} profile sets 20) multiplies
 * the iterations, so that a longer run explores more scenarios of the same shape.
 */
final class StressBudget {

    /** Multiplier of the iterations; 1 in an ordinary build. */
    static final int SCALE = Math.max(1, Integer.getInteger("timedjobs.stress.scale", 1));

    private StressBudget() {}

    /**
     * Fails the run with a message when a condition does not hold. Plain, for the checks run inside
     * the model checker, whose instrumentation an assertion library's machinery does not survive.
     */
    static void check(boolean condition, String message, Object... args) {
        if (!condition) {
            throw new AssertionError(String.format(message, args));
        }
    }

    /** Model checking: each scenario's interleavings explored one switch point at a time. */
    static ModelCheckingOptions modelChecking(int iterations, int invocations) {
        return new ModelCheckingOptions().iterations(iterations * SCALE).invocationsPerIteration(invocations);
    }

    /** Stress: each scenario run on real threads, many times over. */
    static StressOptions stress(int iterations, int invocations) {
        return new StressOptions().iterations(iterations * SCALE).invocationsPerIteration(invocations);
    }
}
