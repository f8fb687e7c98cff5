package io.timedjobs.scheduler.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import org.junit.jupiter.api.Test;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.config.Task;
import org.springframework.scheduling.support.ScheduledMethodRunnable;

/** The names of @Scheduled jobs, which the job registry and the clustered jobs both use. */
class ScheduledJobNamesTest {

    /** A bean with one method of each kind. */
    static final class Jobs {
        @Scheduled(fixedRate = 1000)
        void poll() {}

        @Scheduled(cron = "0 0 * * * *")
        @Scheduled(fixedDelay = 5000)
        void report() {}

        @JobName("billing.nightly-close")
        @Scheduled(cron = "0 0 2 * * *")
        void closeDay() {}

        @JobName(" ")
        @Scheduled(cron = "0 0 2 * * *")
        void blank() {}
    }

    private static Method method(String name) throws NoSuchMethodException {
        return Jobs.class.getDeclaredMethod(name);
    }

    /** A method with one @Scheduled is named bean, dot, method, each time it registers. */
    @Test
    void shouldNameMethodAfterItsBean() throws Exception {
        ScheduledJobNames names = new ScheduledJobNames();
        assertThat(names.register("jobs", method("poll"))).isEqualTo("jobs.poll");
        assertThat(names.register("jobs", method("poll"))).isEqualTo("jobs.poll");
        assertThat(ScheduledJobNames.baseName("jobs", method("poll"))).isEqualTo("jobs.poll");
    }

    /** A @JobName gives the job its name, whatever the bean and method are called; a blank one is refused. */
    @Test
    void shouldNameMethodByItsJobName() throws Exception {
        ScheduledJobNames names = new ScheduledJobNames();
        assertThat(names.register("jobs", method("closeDay"))).isEqualTo("billing.nightly-close");
        assertThat(names.register("renamedBean", method("closeDay"))).isEqualTo("billing.nightly-close");
        assertThat(ScheduledJobNames.isGiven(method("closeDay"))).isTrue();
        assertThat(ScheduledJobNames.isGiven(method("poll"))).isFalse();
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                .isThrownBy(() -> names.register("jobs", method("blank")))
                .withMessageContaining("@JobName");
    }

    /** A method with several @Scheduled gets #0, #1, ... in order of registration, per instance. */
    @Test
    void shouldIndexEachRegistrationOfMethodWithSeveralSchedules() throws Exception {
        ScheduledJobNames names = new ScheduledJobNames();
        assertThat(names.register("jobs", method("report"))).isEqualTo("jobs.report#0");
        assertThat(names.register("jobs", method("report"))).isEqualTo("jobs.report#1");
        assertThat(names.register("other", method("report"))).isEqualTo("other.report#0");
        assertThat(new ScheduledJobNames().register("jobs", method("report"))).isEqualTo("jobs.report#0");
        assertThat(ScheduledJobNames.baseName("jobs", method("report"))).isEqualTo("jobs.report");
    }

    /** The method runnable is found as it is and inside the wrapper Spring's Task puts around it. */
    @Test
    void shouldUnwrapScheduledMethodRunnable() throws Exception {
        ScheduledMethodRunnable runnable = new ScheduledMethodRunnable(new Jobs(), method("poll"));
        Runnable wrapped = new Task(runnable).getRunnable();

        assertThat(ScheduledJobNames.unwrap(runnable)).isSameAs(runnable);
        assertThat(wrapped).isNotInstanceOf(ScheduledMethodRunnable.class);
        assertThat(ScheduledJobNames.unwrap(wrapped)).isSameAs(runnable);
    }

    /** Any other runnable, wrapped or not, holds no @Scheduled method. */
    @Test
    void shouldFindNoMethodInOtherRunnables() {
        Runnable plain = () -> {};
        assertThat(ScheduledJobNames.unwrap(plain)).isNull();
        assertThat(ScheduledJobNames.unwrap(new Task(plain).getRunnable())).isNull();
    }

    /** A job's bean is the singleton that is its target itself; an object of the same class is none. */
    @Test
    void shouldFindSingletonThatIsTheTarget() {
        try (GenericApplicationContext context = new GenericApplicationContext()) {
            context.registerBean("jobs", Jobs.class, Jobs::new);
            context.refresh();
            Jobs bean = context.getBean(Jobs.class);

            assertThat(ScheduledJobNames.singletonName(context.getBeanFactory(), bean))
                    .isEqualTo("jobs");
            assertThat(ScheduledJobNames.singletonName(context.getBeanFactory(), new Jobs()))
                    .isNull();
        }
    }
}
