package io.timedjobs.scheduler.autoconfigure

import io.timedjobs.scheduler.jdbc.cluster.ClusteredJobs
import io.timedjobs.scheduler.jdbc.history.RunHistory
import io.timedjobs.scheduler.jdbc.history.RunHistoryQuery
import io.timedjobs.scheduler.jdbc.history.RunOutcome
import java.time.Duration
import java.time.Instant
import java.util.concurrent.ConcurrentLinkedQueue
import java.util.concurrent.atomic.AtomicInteger
import javax.sql.DataSource
import kotlinx.coroutines.currentCoroutineContext
import kotlinx.coroutines.delay
import kotlinx.coroutines.reactor.ReactorContext
import org.assertj.core.api.Assertions.assertThat
import org.awaitility.Awaitility.await
import org.h2.jdbcx.JdbcDataSource
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test
import org.springframework.boot.WebApplicationType
import org.springframework.boot.autoconfigure.ImportAutoConfiguration
import org.springframework.boot.builder.SpringApplicationBuilder
import org.springframework.context.ConfigurableApplicationContext
import org.springframework.context.annotation.Bean
import org.springframework.context.annotation.Configuration
import org.springframework.scheduling.annotation.EnableScheduling
import org.springframework.scheduling.annotation.Scheduled

/**
 * Kotlin `suspend` `@Scheduled` functions, which Spring turns into a publisher and runs by
 * subscribing, as clustered jobs: two Spring Boot applications on one H2 database, each function
 * suspending longer than its job's period or delay.
 */
class SuspendJobsTest {

    private val applications = mutableListOf<ConfigurableApplicationContext>()

    /**
     * One call of a job's function: the fire `currentFire()` gave before the function first
     * suspended and the one its coroutine's Reactor Context gave after it resumed on another
     * thread, and when it started and ended (System.nanoTime()).
     */
    data class Run(val job: String, val fire: Instant?, val contextFire: Instant?, val start: Long, val end: Long)

    @AfterEach
    fun closeApplications() {
        applications.forEach { it.close() }
    }

    /**
     * Each fire of a fixed-delay, a fixed-rate and a cron `suspend` job that outlasts its period
     * runs once across two instances, runs never overlap, each knows its fire, the history records
     * the function's real length and outcome (a throwing function is a failed run), and a graceful
     * stop waits for the functions under way.
     */
    @Test
    fun shouldRunEachSuspendingFireOnceUntilTheFunctionReturns() {
        RUNS.clear()
        STARTED.clear()
        database = "suspend_jobs_" + DATABASES.incrementAndGet()
        applications.add(start("suspend-1"))
        applications.add(start("suspend-2"))
        val jobs = listOf("delayed", "rate", "cron", "failing")
        await().atMost(WAIT).until { jobs.all { ended(it) >= 3 } }

        for (job in jobs) {
            val runs = runs(job)
            assertThat(runs).`as`("runs of %s", job).allSatisfy { run ->
                assertThat(run.fire).`as`("currentFire() before the first suspension").isNotNull()
                assertThat(run.contextFire).`as`("fire in the coroutine's Reactor Context").isEqualTo(run.fire)
            }
            val perFire = runs.groupingBy { it.fire }.eachCount()
            assertThat(perFire.values).`as`("runs per fire of %s: %s", job, perFire).allMatch { it == 1 }
            for (i in 1 until runs.size) {
                assertThat(runs[i].start)
                    .`as`("run %s of %s starts after the previous one ended: %s", i, job, runs)
                    .isGreaterThanOrEqualTo(runs[i - 1].end)
            }
        }

        val history = applications[0].getBean(RunHistory::class.java)
        await().atMost(WAIT).until { jobs.all { history.find(RunHistoryQuery.all().job("jobs.$it").outcome(RunOutcome.SUCCEEDED, RunOutcome.FAILED)).size >= 3 } }
        for (job in jobs) {
            // a run's record is written after its function returned, and so after its entry here
            val byFire = runs(job).associateBy { it.fire }
            val failing = job == "failing"
            for (record in history.find(RunHistoryQuery.all().job("jobs.$job").outcome(RunOutcome.SUCCEEDED, RunOutcome.FAILED))) {
                assertThat(byFire).`as`("a run of %s for %s", job, record).containsKey(record.fireAt())
                assertThat(record.duration())
                    .`as`("duration of %s", record)
                    .isGreaterThanOrEqualTo(if (failing) FAILING_LENGTH else LENGTH)
                assertThat(record.outcome())
                    .`as`("outcome of %s", record)
                    .isEqualTo(if (failing) RunOutcome.FAILED else RunOutcome.SUCCEEDED)
                if (failing) {
                    assertThat(record.error()).contains("IllegalStateException").contains("no report today")
                }
            }
        }

        applications.forEach { it.close() }
        applications.clear()
        for (job in jobs) {
            assertThat(ended(job).toLong())
                .`as`("runs of %s that ended by the time the applications had stopped", job)
                .isEqualTo(STARTED.count { it == job }.toLong())
        }
    }

    /** The applications of a test, on the test's one in-memory database. */
    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration(SchedulerAutoConfiguration::class, ClusterAutoConfiguration::class)
    @EnableScheduling
    class Application {

        @Bean
        fun dataSource(): DataSource = JdbcDataSource().apply {
            setURL("jdbc:h2:mem:$database;DB_CLOSE_DELAY=-1")
            user = "sa"
        }

        @Bean
        fun jobs() = Jobs()
    }

    /** Spring calls each function at each fire, through a publisher it subscribes to. */
    class Jobs {

        @Scheduled(fixedDelay = 300)
        suspend fun delayed() = timed("delayed", LENGTH, false)

        @Scheduled(fixedRate = 500)
        suspend fun rate() = timed("rate", LENGTH, false)

        @Scheduled(cron = "* * * * * *")
        suspend fun cron() = timed("cron", LENGTH, false)

        @Scheduled(fixedRate = 700)
        suspend fun failing() = timed("failing", FAILING_LENGTH, true)

        /**
         * Notes the fire before suspending, suspends for the given length (resuming on the
         * coroutines' timer thread), reads the fire from the Reactor Context there, and records
         * the run.
         */
        private suspend fun timed(job: String, length: Duration, fail: Boolean) {
            val fire = ClusteredJobs.currentFire()
            val start = System.nanoTime()
            STARTED.add(job)
            delay(length.toMillis())
            val contextFire = currentCoroutineContext()[ReactorContext]
                ?.context
                ?.getOrDefault<Instant>(ClusteredJobs.FIRE_CONTEXT_KEY, null)
            RUNS.add(Run(job, fire, contextFire, start, System.nanoTime()))
            check(!fail) { "no report today" }
        }
    }

    companion object {

        private val WAIT: Duration = Duration.ofSeconds(60)

        /** How long the slow jobs' functions suspend, longer than their periods. */
        val LENGTH: Duration = Duration.ofMillis(1200)

        /** How long the failing job's function suspends before it throws. */
        val FAILING_LENGTH: Duration = Duration.ofMillis(400)

        /** Every call of the jobs' functions that returned or threw, across the applications of one test. */
        val RUNS = ConcurrentLinkedQueue<Run>()

        /** The job of every call begun, across the applications of one test. */
        val STARTED = ConcurrentLinkedQueue<String>()

        private val DATABASES = AtomicInteger()

        /** The in-memory database of the test under way, shared by its applications. */
        @Volatile
        var database = ""

        private fun runs(job: String) = RUNS.filter { it.job == job }.sortedBy { it.start }

        private fun ended(job: String) = RUNS.count { it.job == job }

        private fun start(name: String): ConfigurableApplicationContext =
            SpringApplicationBuilder(Application::class.java)
                .web(WebApplicationType.NONE)
                .properties(
                    "spring.main.banner-mode=off",
                    // each run holds a worker until its function returns, as a blocking run does
                    "timed-jobs.pool-size=6",
                    "timed-jobs.jdbc.initialize-schema=always",
                    "timed-jobs.cluster.instance-name=$name",
                    "timed-jobs.cluster.poll-interval=200ms",
                    "timed-jobs.cluster.lease=5s",
                    "timed-jobs.cluster.time-zone=UTC",
                )
                .run()
    }
}
