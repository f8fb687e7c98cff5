package io.timedjobs.benchmarks.cluster;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.task.SchedulableInstance;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * db-scheduler, one {@link Scheduler} per instance, each with its own pool, polling with
 * {@code lock-and-fetch} (its recommended strategy on PostgreSQL) at the given interval; every other
 * setting is its default (10 worker threads per instance).
 */
final class DbSchedulerPeer implements ClusterPeer {

    /** Its PostgreSQL table, as its documentation gives it. */
    static final String TABLE = """
            create table scheduled_tasks (
              task_name text not null,
              task_instance text not null,
              task_data bytea,
              execution_time timestamp with time zone not null,
              picked boolean not null,
              picked_by text,
              last_success timestamp with time zone,
              last_failure timestamp with time zone,
              consecutive_failures int,
              last_heartbeat timestamp with time zone,
              version bigint not null,
              priority smallint,
              primary key (task_name, task_instance))""";

    private final Duration pollingInterval;
    private final List<Scheduler> schedulers = new ArrayList<>();
    private OneTimeTask<Void> task;

    DbSchedulerPeer(Duration pollingInterval) {
        this.pollingInterval = pollingInterval;
    }

    @Override
    public String name() {
        return "db-scheduler poll " + pollingInterval.toMillis() + " ms";
    }

    @Override
    public void start(List<DataSource> instances, Executions executions) throws Exception {
        try (Connection c = instances.get(0).getConnection();
                Statement s = c.createStatement()) {
            s.execute("drop table if exists scheduled_tasks");
            s.execute(TABLE);
            s.execute("create index execution_time_idx on scheduled_tasks (execution_time)");
            s.execute("create index last_heartbeat_idx on scheduled_tasks (last_heartbeat)");
            s.execute(
                    "create index priority_execution_time_idx on scheduled_tasks (priority desc, execution_time asc)");
        }
        task = Tasks.oneTime("bench")
                .execute((instance, context) -> executions.started(Integer.parseInt(instance.getId())));
        for (DataSource dataSource : instances) {
            Scheduler scheduler = Scheduler.create(dataSource, task)
                    .pollingInterval(pollingInterval)
                    .pollUsingLockAndFetch(0.5, 1.0)
                    .build();
            scheduler.start();
            schedulers.add(scheduler);
        }
    }

    @Override
    public void scheduleAll(Instant[] due) {
        List<SchedulableInstance<?>> batch = new ArrayList<>();
        for (int i = 0; i < due.length; i++) {
            batch.add(SchedulableInstance.of(task.instance(Integer.toString(i)), due[i]));
            if (batch.size() == 1000 || i == due.length - 1) {
                schedulers.get(0).scheduleBatch(batch);
                batch.clear();
            }
        }
    }

    @Override
    public void close() {
        schedulers.forEach(Scheduler::stop);
        schedulers.clear();
    }
}
