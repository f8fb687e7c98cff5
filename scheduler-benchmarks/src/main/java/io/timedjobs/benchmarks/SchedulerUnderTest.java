package io.timedjobs.benchmarks;

/**
 * The one view every benchmark has of a scheduler: one-shot tasks with a delay, cancellation, and
 * shutdown. Each peer is adapted to it in {@link Peers}, as thinly as its API allows, so that the
 * numbers show the scheduler and not the adapter.
 */
public interface SchedulerUnderTest extends AutoCloseable {

    /** The peer's name, as used on the command line ({@code -p peer=...}). */
    String name();

    /**
     * Schedules {@code task} to run once after {@code delayNanos}.
     *
     * @return the peer's own handle ({@code ScheduledFuture}, Netty {@code Timeout}, ...)
     */
    Object schedule(Runnable task, long delayNanos);

    /** Cancels a task scheduled by {@link #schedule}, without interrupting it if it runs. */
    boolean cancel(Object handle);

    /**
     * Bookkeeping between measurements, never timed: drops cancelled tasks from peers that keep them
     * (the JDK's executor without remove-on-cancel). Does nothing for the others.
     */
    default void purge() {}

    /**
     * The prefix of the names of this peer's threads, so that per-thread figures ({@code /proc})
     * can be told apart when several peers live in one process; several prefixes are separated by
     * {@code |}.
     */
    String threadPrefix();

    /** Stops the peer and its threads; pending tasks are dropped. */
    @Override
    void close();
}
