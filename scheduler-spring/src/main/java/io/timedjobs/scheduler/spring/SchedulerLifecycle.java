package io.timedjobs.scheduler.spring;

import io.timedjobs.scheduler.LeaderFollowerScheduler;
import java.time.Duration;
import java.util.function.Supplier;
import org.apache.commons.logging.Log;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe, called by Spring's lifecycle processor, the context-closing thread and destroy: the
 * pause, resume and shutdown of one {@link LeaderFollowerTaskScheduler}, as Spring's executors do
 * them ({@code ExecutorConfigurationSupport} and {@code ExecutorLifecycleDelegate}).
 *
 * <ol>
 *   <li>{@code stop()} pauses through the {@link PauseGate}: due tasks wait, running ones finish;
 *       {@code start()} resumes.
 *   <li>When the context starts closing, the scheduler shuts down at once, unless it must wait for
 *       its tasks or keep accepting them: then shutdown is late, in the lifecycle's {@code
 *       stop(callback)} or in destroy.
 *   <li>Shutdown itself, and the one log line that says what it lost, is the {@link
 *       ShutdownSequence}'s.
 *   <li>Each local job whose next fire the shutdown drops keeps a {@code STOPPING} fate for it, at
 *       that fire's nominal instant: the jobs scheduled as it begins are marked first, so that a
 *       job cancelled before is not taken for one the shutdown stopped.
 * </ol>
 */
final class SchedulerLifecycle {

    private final SchedulerSettings settings;
    private final Supplier<LeaderFollowerScheduler> engine;
    private final Log logger;
    private final JobRegistry jobs;

    private final PauseGate gate = new PauseGate();

    /**
     * Whether shutdown waits for destroy() instead of starting when the context closes; set by the
     * context closing when tasks must be waited for or still accepted.
     */
    private volatile boolean lateShutdown;

    /** How the engine shuts down; null until the first step of shutdown. Guarded by this. */
    private @Nullable ShutdownSequence shutdownSequence;

    /**
     * @param engine the built engine; throws if the scheduler is not initialized
     * @param jobs the scheduler's repeating jobs, which keep the fates of the fires the shutdown drops
     */
    SchedulerLifecycle(
            SchedulerSettings settings, Supplier<LeaderFollowerScheduler> engine, Log logger, JobRegistry jobs) {
        this.settings = settings;
        this.engine = engine;
        this.logger = logger;
        this.jobs = jobs;
    }

    /** Returns the gate that every execution passes. */
    PauseGate gate() {
        return gate;
    }

    boolean isPaused() {
        return gate.isPaused();
    }

    void start() {
        gate.start();
    }

    void stop() {
        if (!lateShutdown) {
            gate.stop(null);
        }
    }

    void stop(Runnable callback) {
        if (gate.isShutdown()) {
            callback.run();
        } else if (lateShutdown) {
            Duration period = settings.getAwaitTerminationPeriod();
            if (settings.isWaitForTasksToCompleteOnShutdown()
                    && !settings.isAcceptTasksAfterContextClose()
                    && !period.isZero()) {
                jobs.shutdownBegins();
                shutdownSequence().startGracefulThenCallBack(period, callback);
                jobs.recordDropsByShutdown();
            } else {
                callback.run();
            }
        } else {
            gate.stop(callback);
        }
    }

    /** Called when the scheduler's own context starts closing. */
    void contextClosing(@Nullable LeaderFollowerScheduler built) {
        if (settings.isAcceptTasksAfterContextClose() || settings.isWaitForTasksToCompleteOnShutdown()) {
            lateShutdown = true;
        } else {
            gate.markShutdown();
            if (built != null) {
                jobs.shutdownBegins();
                built.shutdown();
                jobs.recordDropsByShutdown();
            }
        }
    }

    /** Shuts the built engine down, as {@link LeaderFollowerTaskScheduler#shutdown()} describes. */
    void shutdown() {
        if (logger.isDebugEnabled()) {
            logger.debug("Shutting down " + settings.describe());
        }
        gate.markShutdown();
        jobs.shutdownBegins();
        ShutdownSequence sequence = shutdownSequence();
        Duration period = settings.getAwaitTerminationPeriod();
        if (!settings.isWaitForTasksToCompleteOnShutdown()) {
            sequence.force(null);
            sequence.awaitThenForce(period);
        } else if (sequence.isGracefulStarted()) {
            sequence.force("they did not finish within the await-termination period or Spring's shutdown phase"
                    + " timeout, whichever is shorter");
        } else {
            sequence.startGraceful(period);
            sequence.awaitThenForce(period);
        }
        sequence.report();
        jobs.recordDropsByShutdown();
    }

    private synchronized ShutdownSequence shutdownSequence() {
        ShutdownSequence sequence = shutdownSequence;
        if (sequence == null) {
            sequence = new ShutdownSequence(engine.get(), settings.describe(), settings.getThreadNamePrefix(), logger);
            shutdownSequence = sequence;
        }
        return sequence;
    }
}
