package io.timedjobs.scheduler.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;

/**
 * Runs the application's Timed Jobs schedulers on a {@link io.timedjobs.scheduler.ManualTicker}
 * bean, for a {@code @SpringBootTest} of the application's jobs. For test classes.
 *
 * <p>The ticker's clock reads the real time while the application starts, so that the start times
 * Spring computes for {@code @Scheduled} jobs (cron, {@code initialDelay}, {@code fixedDelay})
 * agree with it; from the first advance on it moves only with the ticker. {@code
 * ticker.advance(Duration)} returns once every execution that came due has finished, including
 * what those executions scheduled that is due too, or fails after {@link
 * ManualTickerAutoConfiguration#AWAIT_EXECUTIONS} naming the code still running:
 *
 * <pre>{@code
 * @SpringBootTest
 * @AutoConfigureManualTicker
 * class ReportJobTest {
 *     @Autowired ManualTicker ticker;
 *     @Autowired ReportJob job;
 *
 *     @Test
 *     void runsEveryHour() {
 *         ticker.advance(Duration.ofHours(3));
 *         assertThat(job.runs()).isEqualTo(4); // at start-up, then once an hour
 *     }
 * }
 * }</pre>
 *
 * <p>It applies to every {@code LeaderFollowerTaskScheduler} bean, the auto-configured one and
 * those the application declares; an application's own {@code ManualTicker} bean is used instead
 * of a new one. Do not advance the ticker from inside a task: the advance would wait for that
 * task itself.
 *
 * <p>With scheduler-jdbc on the class path, it turns cluster coordination off ({@code
 * timed-jobs.cluster.enabled=false}, logged once at INFO), so that every {@code @Scheduled} job
 * runs on the ticker as above: clustered fires follow the database's clock, which the ticker cannot
 * move. A property the test sets itself ({@code @SpringBootTest(properties = ...)}) wins. With
 * {@link #cluster() cluster = true} coordination stays on (and so do durable tasks): jobs then run
 * when the database's clock reaches their fires, whatever the ticker says. Durable task handlers
 * are tested with {@code DurableTaskTesting.runNow(engine, handler, key)} and {@code
 * DurableTaskTesting.runDueNow(engine)}, which run tasks on the calling thread.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ImportAutoConfiguration
public @interface AutoConfigureManualTicker {

    /**
     * Whether to keep cluster coordination on (scheduler-jdbc): false by default, so that the ticker
     * drives every job; true runs clustered jobs, and durable tasks, on the database's clock.
     */
    boolean cluster() default false;
}
