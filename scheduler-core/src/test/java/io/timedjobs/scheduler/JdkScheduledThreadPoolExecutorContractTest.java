package io.timedjobs.scheduler;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;

/** The contract suite against the JDK's {@link ScheduledThreadPoolExecutor}, the reference. */
class JdkScheduledThreadPoolExecutorContractTest extends ScheduledExecutorContractTest {

    @Override
    protected ScheduledExecutorService newScheduler(Options options) {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(options.poolSize());
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(options.executeDelayedAfterShutdown());
        executor.setContinueExistingPeriodicTasksAfterShutdownPolicy(options.continuePeriodicAfterShutdown());
        return executor;
    }

    @Override
    protected boolean runsEveryTaskAcceptedDuringShutdown() {
        return false;
    }
}
