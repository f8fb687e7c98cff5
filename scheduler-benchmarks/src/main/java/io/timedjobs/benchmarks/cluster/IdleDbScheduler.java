package io.timedjobs.benchmarks.cluster;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.task.helper.RecurringTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.github.kagkarlsson.scheduler.task.schedule.Schedules;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * db-scheduler at its defaults (10 s polling, its default fetch strategy), one {@link Scheduler}
 * with {@code jobs} recurring tasks on a daily cron at 03:00.
 */
final class IdleDbScheduler implements IdlePeer {

    private @Nullable Scheduler scheduler;

    @Override
    public String name() {
        return "db-scheduler defaults";
    }

    @Override
    public void createTables(DataSource setup) throws Exception {
        try (Connection c = setup.getConnection();
                Statement s = c.createStatement()) {
            s.execute("drop table if exists scheduled_tasks");
            s.execute(DbSchedulerPeer.TABLE);
        }
    }

    @Override
    public void start(DataSource dataSource, int jobs) {
        List<RecurringTask<Void>> tasks = new ArrayList<>();
        for (int i = 0; i < jobs; i++) {
            tasks.add(
                    Tasks.recurring("daily-" + i, Schedules.cron("0 0 3 * * *")).execute((instance, context) -> {}));
        }
        Scheduler started = Scheduler.create(dataSource)
                .startTasks(tasks)
                .registerShutdownHook()
                .build();
        started.start();
        scheduler = started;
    }

    @Override
    public void close() {
        if (scheduler != null) {
            scheduler.stop();
            scheduler = null;
        }
    }
}
