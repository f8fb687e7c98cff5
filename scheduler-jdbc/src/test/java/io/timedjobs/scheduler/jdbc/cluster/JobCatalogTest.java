package io.timedjobs.scheduler.jdbc.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import io.timedjobs.scheduler.spring.ScheduledJobNames;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.support.ScheduledMethodRunnable;

/** What the catalog accepts as a clustered job's name. */
class JobCatalogTest {

    /**
     * A derived name longer than the tables' job_name column is refused with the job and the limit,
     * rather than written cut (where it could become another job's name) or refused at each fire.
     */
    @Test
    void shouldRefuseAClusteredJobWhoseNameTheTablesCannotHold() throws Exception {
        DefaultListableBeanFactory beans = new DefaultListableBeanFactory();
        Jobs jobs = new Jobs();
        String longest = "b".repeat(ScheduledJobNames.MAX_LENGTH - ".tick".length());
        beans.registerSingleton(longest, jobs);
        beans.registerSingleton(longest + "x", new Jobs());
        JobCatalog catalog = new JobCatalog(beans, Set.of());

        assertThat(catalog.describe(runnable(jobs), true).name()).hasSize(ScheduledJobNames.MAX_LENGTH);
        Runnable tooLong = runnable(beans.getBean(longest + "x"));
        assertThatIllegalArgumentException()
                .isThrownBy(() -> catalog.describe(tooLong, true))
                .withMessageContaining(Jobs.class.getName() + ".tick")
                .withMessageContaining("301 characters")
                .withMessageContaining("over the 300");
        assertThat(catalog.describe(tooLong, false).clustered())
                .as("on another scheduler the name is never written")
                .isFalse();
    }

    private static Runnable runnable(Object bean) throws NoSuchMethodException {
        return new ScheduledMethodRunnable(bean, Jobs.class.getDeclaredMethod("tick"));
    }

    static class Jobs {
        @Scheduled(fixedDelay = 1000)
        void tick() {}
    }
}
