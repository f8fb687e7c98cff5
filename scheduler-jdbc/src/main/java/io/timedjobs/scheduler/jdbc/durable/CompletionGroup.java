package io.timedjobs.scheduler.jdbc.durable;

import io.timedjobs.scheduler.jdbc.history.FinishedRun;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Thread-safe; used by {@link DurableTaskRunner} only, on the engine's workers. Group commit of the
 * completions of one-off tasks whose handler ran outside a transaction: a worker whose task
 * succeeded {@linkplain #add adds} its completion; if no other worker is writing completions, it
 * writes every one waiting (its own first among them) in groups of at most {@value #MAX_GROUP}, one
 * transaction each, and again while more arrive; if one is, it goes on at once to its next task,
 * and the writing worker takes its completion along.
 *
 * <p>So a worker alone, or a quiet system, writes each completion at once, as before (a group of
 * one); under load, completions that end while one group is written wait for it and share the next
 * commit. A completion written late only widens the at-least-once window (the task runs again if
 * this instance dies before its completion is written), by the time one group takes to write.
 */
final class CompletionGroup {

    /** The most completions written in one transaction. */
    static final int MAX_GROUP = 200;

    /** A handler's success, waiting to be written. */
    record Completion(ClaimedTask task, FinishedRun run, long lapsesAtStart) {}

    private final Queue<Completion> waiting = new ConcurrentLinkedQueue<>();
    private final AtomicInteger size = new AtomicInteger();
    private final AtomicBoolean writing = new AtomicBoolean();
    private final Consumer<List<Completion>> writer;

    /**
     * @param writer writes one group, in one transaction where it holds more than one; never throws
     *     (what it cannot write, it keeps for later)
     */
    CompletionGroup(Consumer<List<Completion>> writer) {
        this.writer = writer;
    }

    /** Adds a completion; writes it, with the others waiting, unless another worker writes already. */
    void add(Completion completion) {
        waiting.add(completion);
        size.incrementAndGet();
        writeWaiting();
    }

    /**
     * Writes what waits, unless another thread writes already (it takes all of it). The check after
     * each round sees what was added while the flag was held: an adder that found the flag taken
     * relies on it.
     */
    void writeWaiting() {
        while (!waiting.isEmpty() && writing.compareAndSet(false, true)) {
            try {
                List<Completion> group;
                while (!(group = next()).isEmpty()) {
                    try {
                        writer.accept(group);
                    } finally {
                        size.addAndGet(-group.size());
                    }
                }
            } finally {
                writing.set(false);
            }
        }
    }

    /** Completions added and not written yet (being written included). */
    int size() {
        return size.get();
    }

    private List<Completion> next() {
        List<Completion> group = new ArrayList<>();
        Completion completion;
        while (group.size() < MAX_GROUP && (completion = waiting.poll()) != null) {
            group.add(completion);
        }
        return group;
    }
}
