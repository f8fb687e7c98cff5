package io.timedjobs.scheduler.dashboard;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Immutable, any thread: everything the {@code timedjobs} endpoint and the live page show, as they
 * serialize it to JSON. Times are ISO-8601 strings, durations milliseconds.
 *
 * @param scheduler the scheduler and its queue
 * @param jobs every repeating job, in order of registration
 * @param cluster instances and durable tasks; null without {@code scheduler-jdbc}
 */
public record TimedJobsView(
        SchedulerView scheduler,
        List<JobView> jobs,
        @Nullable ClusterView cluster) {

    /**
     * The scheduler and its queue.
     *
     * @param name its bean name
     * @param status {@code UP} while it runs, {@code PAUSED} while its context is stopped, {@code
     *     DOWN} once shut down
     * @param late whether its most overdue task is past {@code timed-jobs.health.lateness-threshold}
     * @param queueDepth tasks waiting in the queue
     * @param active tasks running now
     * @param poolSize live worker threads
     * @param latenessMillis how far the most overdue waiting task is past its due time now
     * @param completed executions finished
     * @param failed executions that threw
     */
    public record SchedulerView(
            String name,
            String status,
            boolean late,
            int queueDepth,
            int active,
            int poolSize,
            double latenessMillis,
            long completed,
            long failed) {}

    /**
     * One repeating job.
     *
     * @param name bean and method for {@code @Scheduled} methods
     * @param trigger its schedule in words
     * @param clustered whether each fire runs on one instance only
     * @param paused whether its runs are skipped
     * @param nextRun when it runs next here
     * @param lastRun when its last run started here
     * @param lastOutcome {@code SUCCESS} or {@code ERROR}, as Spring names task outcomes
     * @param lastDurationMillis how long its last run took
     * @param lateness lateness of its recent runs
     * @param runs runs here so far; for a clustered job, the fires this instance won and ran (not
     *     those it tried and another instance ran)
     * @param failures runs that threw
     * @param cluster what the cluster did with a clustered job's fires; null for other jobs and
     *     without {@code scheduler-jdbc}
     */
    public record JobView(
            String name,
            String trigger,
            boolean clustered,
            boolean paused,
            @Nullable String nextRun,
            @Nullable String lastRun,
            @Nullable String lastOutcome,
            @Nullable Double lastDurationMillis,
            LatenessView lateness,
            long runs,
            long failures,
            @Nullable ClusterJobView cluster) {}

    /**
     * A clustered job's fires across the instances sharing the database. Read from the fires table
     * when the view is asked for, which keeps each fire for twice {@code
     * timed-jobs.cluster.fire-horizon}: older fires are counted by no one.
     *
     * @param fires fires run by any instance, as far back as the fires table keeps them: a recorded
     *     fire that the run history records as skipped (a paused fire's claim, a stopping instance's
     *     claim, a fire whose lease the previous run still held) is counted in {@code skippedInCluster} instead
     * @param runsHere fires this instance won and ran since it started
     * @param skippedHere fires this instance tried and did not run since it started, by reason
     *     ({@code LOST}: another instance ran it; {@code PAUSED}, {@code RUNNING}, {@code HORIZON},
     *     {@code DATABASE_DOWN}), every reason listed
     * @param lastFireAt the nominal instant of the latest kept fire that ran; null if none is kept
     * @param lastFireBy the instance that ran that fire; null if none is kept
     * @param refused why this instance refuses to run the job (it never runs here); null while it
     *     takes part
     * @param skippedInCluster recorded fires, as far back as the fires table keeps them, that did
     *     not run, by the reason the run history gives ({@code PAUSED}: claimed while the job was
     *     paused; {@code STILL_RUNNING}; {@code STOPPING}: claimed and refused by a stopping
     *     instance), all three listed; zeros without a run history
     */
    public record ClusterJobView(
            long fires,
            long runsHere,
            Map<String, Long> skippedHere,
            @Nullable String lastFireAt,
            @Nullable String lastFireBy,
            @Nullable String refused,
            Map<String, Long> skippedInCluster) {}

    /**
     * Lateness (start time minus due time) of a job's most recent runs.
     *
     * @param p50Millis median
     * @param p99Millis 99th percentile
     * @param maxMillis largest
     * @param recentMillis each run's, oldest first
     */
    public record LatenessView(double p50Millis, double p99Millis, double maxMillis, List<Double> recentMillis) {}

    /**
     * Instances sharing the database, and durable tasks.
     *
     * @param instance this instance's name
     * @param instances every registered instance
     * @param durable durable tasks; null when they are off
     * @param history the run history; null when it is off
     */
    public record ClusterView(
            String instance,
            List<InstanceView> instances,
            @Nullable DurableView durable,
            @Nullable HistoryView history) {

        /** Without a run history. */
        public ClusterView(String instance, List<InstanceView> instances, @Nullable DurableView durable) {
            this(instance, instances, durable, null);
        }
    }

    /**
     * The run history (timed-jobs.history.*), as every instance wrote it.
     *
     * @param timelines per clustered job of this instance, its latest runs, latest first, at most
     *     {@value ClusterReport#TIMELINE_LISTED} each: which instance ran which fire
     * @param lastFailures the latest runs of jobs and durable tasks that threw, latest first, at
     *     most {@value ClusterReport#FAILURES_LISTED}
     */
    public record HistoryView(Map<String, List<RunView>> timelines, List<RunView> lastFailures) {}

    /**
     * One fate of a fire as the history recorded it: a run, or a fire that did not run.
     *
     * @param kind {@code JOB} (a repeating job's fire) or {@code TASK} (a durable execution)
     * @param name the job, or the durable task's handler
     * @param taskKey the durable task's key; null for a job
     * @param fireAt the nominal fire it ran for, or that was skipped
     * @param instance the instance that ran it, or that skipped it
     * @param startedAt when it started; null for a skip
     * @param durationMillis how long it ran; 0 for a skip
     * @param outcome {@code SUCCEEDED}, {@code FAILED}, {@code RETRIED} (a durable attempt retried
     *     later) or {@code SKIPPED}
     * @param attempt which attempt it was (1 for a job)
     * @param error the exception's class and message, cut; null unless it threw
     * @param skipReason why it did not run, one of {@link HistorySearch#SKIP_REASONS}; null unless
     *     skipped
     * @param catchUp whether it ran late as a catch-up run, after every instance had been down
     * @param stackTrace the exception's stack trace, cut to a bound the guide states; null unless it
     *     threw or when the history keeps none
     * @param fireUntil the last nominal fire it covers: {@code fireAt} for a run, the last of a range
     *     of consecutive skipped fires (a pause, an outage)
     * @param fires how many nominal fires it covers: 1 for a run
     * @param id the record's id, which {@code id=} opens whole (stack trace included): {@code C} and
     *     its id in the run history, {@code L} and its sequence in this instance's memory; null where
     *     none is known
     */
    public record RunView(
            String kind,
            String name,
            @Nullable String taskKey,
            String fireAt,
            String instance,
            @Nullable String startedAt,
            long durationMillis,
            String outcome,
            int attempt,
            @Nullable String error,
            @Nullable String skipReason,
            boolean catchUp,
            @Nullable String stackTrace,
            String fireUntil,
            long fires,
            @Nullable String id) {

        /** A run, as the history recorded runs before it recorded skips. */
        public RunView(
                String kind,
                String name,
                @Nullable String taskKey,
                String fireAt,
                String instance,
                String startedAt,
                long durationMillis,
                String outcome,
                int attempt,
                @Nullable String error) {
            this(
                    kind,
                    name,
                    taskKey,
                    fireAt,
                    instance,
                    startedAt,
                    durationMillis,
                    outcome,
                    attempt,
                    error,
                    null,
                    false,
                    null,
                    fireAt,
                    1,
                    null);
        }
    }

    /**
     * One page of a {@link HistorySearch}.
     *
     * @param source where the fates come from: {@code CLUSTER} (the run history in the database) or
     *     {@code LOCAL} (this instance's memory, for jobs that are not clustered)
     * @param runs the fates, latest fire first; for a search {@code at} an instant, the fate covering
     *     it, or the nearest before and after
     * @param next the cursor of the next page; null on the last
     * @param knownFrom per job of this instance's memory that has let older fates go (it keeps
     *     {@value io.timedjobs.scheduler.spring.TrackedJob#FATES_KEPT} per job): the nominal fire from
     *     which its fates tell every fire; before it, no fate means nothing known. Empty for the run
     *     history, and while every fate is kept
     * @param fate for a search {@code at} an instant: which fate covers it; null for other searches
     */
    public record HistoryPage(
            String source,
            List<RunView> runs,
            @Nullable String next,
            Map<String, String> knownFrom,
            @Nullable FateAt fate) {

        public HistoryPage {
            knownFrom = Map.copyOf(knownFrom);
        }

        /** A page with no fate at an instant, every fate of it known. */
        public HistoryPage(String source, List<RunView> runs, @Nullable String next) {
            this(source, runs, next, Map.of(), null);
        }
    }

    /**
     * What happened to a job at an instant: the same shape for local and clustered jobs.
     *
     * @param at the instant asked about
     * @param fate {@code ran} or {@code skipped} when a record covers it (its nominal fires, from
     *     {@code fireAt} to {@code fireUntil}, include it); {@code none} when no record does (not a
     *     fire of the job, or one the history does not hold); {@code unknown} when it lies before
     *     what this instance's memory still keeps of a local job ({@link HistoryPage#knownFrom()})
     * @param covering the records covering it: one, or none (two where instances of different schema
     *     versions each wrote one)
     * @param before the latest record whose fires all lie before it, or null
     * @param after the earliest record whose fires all lie after it, or null
     */
    public record FateAt(
            String at,
            String fate,
            List<RunView> covering,
            @Nullable RunView before,
            @Nullable RunView after) {

        public FateAt {
            covering = List.copyOf(covering);
        }

        /** Answers from the records found, the instant known unless {@code unknown}. */
        static FateAt of(
                Instant at,
                boolean unknown,
                List<RunView> covering,
                @Nullable RunView before,
                @Nullable RunView after) {
            String fate = unknown
                    ? "unknown"
                    : covering.isEmpty()
                            ? "none"
                            : "SKIPPED".equals(covering.get(0).outcome()) ? "skipped" : "ran";
            return new FateAt(at.toString(), fate, covering, before, after);
        }

        /** The records as a page lists them: after, covering, before (latest fire first). */
        List<RunView> listed() {
            List<RunView> out = new ArrayList<>(covering.size() + 2);
            if (after != null) {
                out.add(after);
            }
            out.addAll(covering);
            if (before != null) {
                out.add(before);
            }
            return out;
        }
    }

    /**
     * One instance.
     *
     * @param name its name
     * @param startedAt when it registered
     * @param heartbeatAt its last heartbeat
     */
    public record InstanceView(String name, String startedAt, String heartbeatAt) {}

    /**
     * Durable tasks in the database.
     *
     * @param counts tasks by state, every state listed
     * @param failed the failed ones, earliest due first, at most {@value ClusterReport#FAILED_LISTED}
     */
    public record DurableView(Map<String, Long> counts, List<FailedTaskView> failed) {}

    /**
     * A durable task that ran out of attempts.
     *
     * @param handler its handler
     * @param key its key
     * @param attempts how many times it was started
     * @param lastError the message of its last failure
     */
    public record FailedTaskView(
            String handler,
            String key,
            int attempts,
            @Nullable String lastError) {}
}
