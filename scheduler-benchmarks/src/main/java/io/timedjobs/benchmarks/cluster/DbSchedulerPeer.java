package io.timedjobs.benchmarks.cluster;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.SchedulerBuilder;
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
 * db-scheduler, one {@link Scheduler} per instance, each with its own pool, polling at the given
 * interval; every other setting is its default (10 worker threads per instance). On PostgreSQL it
 * polls with {@code lock-and-fetch}, its recommended strategy there. On MariaDB it polls with {@code
 * fetch-and-lock-on-execute}, its default (fetch three times the threads, claim each row as it
 * starts): its MariaDB customization, which its auto-detection picks, refuses {@code lock-and-fetch}
 * (it declares no {@code SKIP LOCKED}, though MariaDB has it from 10.6). There it also stores UTC
 * timestamps ({@code alwaysPersistTimestampInUTC}), as it recommends for MySQL and MariaDB, whose
 * {@code timestamp} keeps no zone.
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

    /**
     * Its MySQL and MariaDB table, as its documentation gives it, indexes included. Needs {@code
     * explicit_defaults_for_timestamp} (the default from MariaDB 10.10 and in MySQL 8): without it
     * MariaDB would make {@code execution_time} update itself on every change of its row.
     */
    static final String MARIADB_TABLE = """
            create table scheduled_tasks (
              task_name varchar(100) not null,
              task_instance varchar(100) not null,
              task_data blob,
              execution_time timestamp(6) not null,
              picked boolean not null,
              picked_by varchar(50),
              last_success timestamp(6) null,
              last_failure timestamp(6) null,
              consecutive_failures int,
              last_heartbeat timestamp(6) null,
              version bigint not null,
              priority smallint,
              primary key (task_name, task_instance),
              index execution_time_idx (execution_time),
              index last_heartbeat_idx (last_heartbeat),
              index priority_execution_time_idx (priority desc, execution_time asc))""";

    private final Duration pollingInterval;
    private final BenchDatabase.Kind database;
    private final List<Scheduler> schedulers = new ArrayList<>();
    private OneTimeTask<Void> task;

    DbSchedulerPeer(Duration pollingInterval, BenchDatabase.Kind database) {
        this.pollingInterval = pollingInterval;
        this.database = database;
    }

    @Override
    public String name() {
        String name = "db-scheduler poll " + pollingInterval.toMillis() + " ms";
        return database == BenchDatabase.Kind.MARIADB ? name + " fetch-and-lock" : name;
    }

    /** The polling strategy as db-scheduler names it, for the run's header. */
    static String pollingStrategy(BenchDatabase.Kind database) {
        return database == BenchDatabase.Kind.MARIADB ? "fetch-and-lock-on-execute" : "lock-and-fetch";
    }

    @Override
    public void createTables(DataSource dataSource) throws Exception {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            s.execute("drop table if exists scheduled_tasks");
            if (database == BenchDatabase.Kind.MARIADB) {
                s.execute(MARIADB_TABLE);
            } else {
                s.execute(TABLE);
                s.execute("create index execution_time_idx on scheduled_tasks (execution_time)");
                s.execute("create index last_heartbeat_idx on scheduled_tasks (last_heartbeat)");
                s.execute("create index priority_execution_time_idx on scheduled_tasks"
                        + " (priority desc, execution_time asc)");
            }
        }
    }

    @Override
    public void startInstances(List<DataSource> instances, int firstNumber, Executions executions) {
        task = Tasks.oneTime("bench")
                .execute((instance, context) -> executions.started(Integer.parseInt(instance.getId())));
        for (DataSource dataSource : instances) {
            SchedulerBuilder builder = Scheduler.create(dataSource, task).pollingInterval(pollingInterval);
            if (database == BenchDatabase.Kind.MARIADB) {
                // Its default strategy at its default sizes: a batch of three times the threads.
                builder.pollUsingFetchAndLockOnExecute(0.5, 3.0).alwaysPersistTimestampInUTC();
            } else {
                builder.pollUsingLockAndFetch(0.5, 1.0);
            }
            Scheduler scheduler = builder.build();
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
