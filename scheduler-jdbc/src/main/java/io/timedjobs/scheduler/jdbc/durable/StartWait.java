package io.timedjobs.scheduler.jdbc.durable;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe; used by {@link DurableTaskRunner} only, on the engine's workers. Runs a fenced start
 * on a helper thread and waits for its answer; past a deadline (its task's due instant and a little
 * grace) it stops waiting as soon as {@code mayGiveUp} says so: when the database is known to be
 * away, or suspect, and the task's lease still holds, so that a database gone silent makes no task
 * late. Short of that (a row locked a moment by the application's cancel or replace, a busy
 * database), the answer is awaited: the start is what fences a task cancelled or changed since its
 * claim. A call that outlives the wait goes on where it runs; its late answer and late failure are
 * handed to {@code onLateAnswer} and {@code onLateFailure}.
 *
 * <p>The helper threads are few ({@link #MAX_THREADS}; a start beyond them runs on the caller's
 * thread, waiting as before) and end when idle.
 */
final class StartWait {

    /** Starts that may be in flight on helper threads at once. */
    static final int MAX_THREADS = 32;

    private static final AtomicInteger THREADS = new AtomicInteger();

    private final ThreadPoolExecutor helpers =
            new ThreadPoolExecutor(0, MAX_THREADS, 30, TimeUnit.SECONDS, new SynchronousQueue<>(), job -> {
                Thread thread = new Thread(job, "timed-jobs-durable-start-" + THREADS.incrementAndGet());
                thread.setDaemon(true);
                return thread;
            });

    /** How often a wait past its deadline asks {@code mayGiveUp} again. */
    private static final long RECHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    /**
     * Returns the call's answer if it comes by {@code deadlineNanos} (System.nanoTime()), or later
     * as long as {@code mayGiveUp} says no; else null once it says yes, and the call goes on. A
     * failure while waiting is thrown as the call threw it.
     */
    <T> @Nullable T within(
            Supplier<T> call,
            long deadlineNanos,
            BooleanSupplier mayGiveUp,
            Consumer<T> onLateAnswer,
            Consumer<RuntimeException> onLateFailure) {
        CompletableFuture<T> answer;
        try {
            answer = CompletableFuture.supplyAsync(call, helpers);
        } catch (RejectedExecutionException busy) {
            return call.get();
        }
        try {
            return answer.get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException late) {
            return pastDeadline(answer, mayGiveUp, onLateAnswer, onLateFailure);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return answer.join(); // the start is owed its answer: a stop interrupts only after it
        } catch (ExecutionException ex) {
            throw unwrapped(ex.getCause());
        } catch (CompletionException ex) {
            throw unwrapped(ex.getCause());
        }
    }

    /** Waits on as long as {@code mayGiveUp} says no: the call itself is bounded by the database timeout. */
    private static <T> @Nullable T pastDeadline(
            CompletableFuture<T> answer,
            BooleanSupplier mayGiveUp,
            Consumer<T> onLateAnswer,
            Consumer<RuntimeException> onLateFailure) {
        try {
            while (!mayGiveUp.getAsBoolean()) {
                try {
                    return answer.get(RECHECK_NANOS, TimeUnit.NANOSECONDS);
                } catch (TimeoutException stillWaiting) {
                    // ask again
                }
            }
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return answer.join();
        } catch (ExecutionException ex) {
            throw unwrapped(ex.getCause());
        }
        answer.whenComplete((late, failure) -> {
            Throwable cause = failure instanceof CompletionException wrapped ? wrapped.getCause() : failure;
            if (cause instanceof RuntimeException runtime) {
                onLateFailure.accept(runtime);
            } else if (failure == null) {
                onLateAnswer.accept(late);
            }
        });
        return null;
    }

    private static RuntimeException unwrapped(@Nullable Throwable cause) {
        if (cause instanceof RuntimeException runtime) {
            return runtime;
        }
        if (cause instanceof Error error) {
            throw error;
        }
        return new IllegalStateException(cause);
    }
}
