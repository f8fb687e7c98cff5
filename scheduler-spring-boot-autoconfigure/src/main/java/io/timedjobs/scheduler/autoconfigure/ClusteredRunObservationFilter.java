package io.timedjobs.scheduler.autoconfigure;

import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationFilter;
import io.timedjobs.scheduler.jdbc.cluster.ClusteredJobs;
import java.time.Instant;
import org.springframework.scheduling.support.ScheduledTaskObservationContext;

/**
 * Thread-safe; applied by the observation registry when a {@code tasks.scheduled.execution}
 * observation stops, on the thread that ran the job. Adds which clustered job ran and which fire:
 * {@value #JOB} as a low-cardinality key (one value per job, so timers may carry it) and {@value
 * #FIRE}, the nominal instant, as a high-cardinality one (spans only, as Micrometer's conventions
 * ask for values without a bound).
 *
 * <p>Every scheduled observation gets {@value #JOB}, {@value #LOCAL} for a job that runs on every
 * instance, because a meter registry such as Prometheus's wants the same keys on every timer of a
 * name.
 */
final class ClusteredRunObservationFilter implements ObservationFilter {

    /** The clustered job's name. */
    static final String JOB = "job.name";

    /** The nominal fire, ISO-8601, on the database's clock. */
    static final String FIRE = "job.fire";

    /** {@value #JOB} of a run that is not clustered. */
    static final String LOCAL = "none";

    @Override
    public Observation.Context map(Observation.Context context) {
        if (!(context instanceof ScheduledTaskObservationContext)) {
            return context;
        }
        String job = ClusteredJobs.currentJob();
        Instant fire = ClusteredJobs.currentFire();
        context.addLowCardinalityKeyValue(KeyValue.of(JOB, job == null ? LOCAL : job));
        if (fire != null) {
            context.addHighCardinalityKeyValue(KeyValue.of(FIRE, fire.toString()));
        }
        return context;
    }
}
