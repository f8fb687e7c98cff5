package io.timedjobs.scheduler;

import java.util.concurrent.ScheduledExecutorService;

/** The contract suite against {@link LeaderFollowerScheduler}. */
class LeaderFollowerSchedulerContractTest extends ScheduledExecutorContractTest {

    @Override
    protected ScheduledExecutorService newScheduler(Options options) {
        return LeaderFollowerScheduler.builder()
                .poolSize(options.poolSize())
                .threadNamePrefix("contract-")
                .executeExistingDelayedTasksAfterShutdown(options.executeDelayedAfterShutdown())
                .continueExistingPeriodicTasksAfterShutdown(options.continuePeriodicAfterShutdown())
                .errorHandler(failure -> {})
                .build();
    }
}
