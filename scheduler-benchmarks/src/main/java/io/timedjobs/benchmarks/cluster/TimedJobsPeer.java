package io.timedjobs.benchmarks.cluster;

import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.TableNames;
import io.timedjobs.scheduler.jdbc.durable.DurableTask;
import io.timedjobs.scheduler.jdbc.durable.DurableTaskEngine;
import io.timedjobs.scheduler.jdbc.durable.DurableTaskHandler;
import io.timedjobs.scheduler.jdbc.durable.DurableTasks;
import io.timedjobs.scheduler.jdbc.history.RunHistory;
import io.timedjobs.scheduler.jdbc.history.RunHistorySettings;
import io.timedjobs.scheduler.jdbc.schema.SchemaInitializer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Our durable tasks, one {@link DurableTaskEngine} per instance, each on its own pool, with the
 * default settings (5 s lookahead, 1 s poll, 30 s lease). Tasks are scheduled through the first
 * instance's {@link DurableTasks}, 1,000 to a transaction.
 */
final class TimedJobsPeer implements ClusterPeer {

    private static final String HANDLER = "bench";

    private final List<DurableTaskEngine> engines = new ArrayList<>();
    private final boolean history;
    private DataSource first;

    /** Without the run history: each execution's completion as before. */
    TimedJobsPeer() {
        this(false);
    }

    /** With or without the run history, which writes a record in each completion's transaction. */
    TimedJobsPeer(boolean history) {
        this.history = history;
    }

    @Override
    public String name() {
        return history ? "timed-jobs+history" : "timed-jobs";
    }

    @Override
    public void createTables(DataSource dataSource) {
        // The dialect (PostgreSQL or MariaDB) comes from the connection; the table names are the same
        // on both, and no foreign keys tie the tables, so they drop in any order.
        ClusterDatabase database = ClusterDatabase.of(dataSource, TableNames.defaults());
        List<String> tables = new ArrayList<>(database.tables().all());
        tables.add(database.tables().schemaVersion());
        for (String table : tables) {
            database.jdbc().execute("drop table if exists " + table);
        }
        new SchemaInitializer(database).initialize(SchemaInitializer.Mode.ALWAYS);
    }

    @Override
    public void startInstances(List<DataSource> instances, int firstNumber, Executions executions) {
        first = instances.get(0);
        DurableTaskHandler<String> handler = new DurableTaskHandler<>() {
            @Override
            public Class<String> payloadType() {
                return String.class;
            }

            @Override
            public void handle(DurableTask<String> task) {
                executions.started(Integer.parseInt(task.key()));
            }
        };
        for (int i = 0; i < instances.size(); i++) {
            ClusterDatabase instance = ClusterDatabase.of(instances.get(i), TableNames.defaults());
            DurableTaskEngine engine = DurableTaskEngine.builder(instance)
                    .instanceName("bench-" + (firstNumber + i))
                    .handler(HANDLER, handler)
                    .history(new RunHistory(
                            instance, history ? RunHistorySettings.defaults() : RunHistorySettings.disabled()))
                    .build();
            engine.start();
            engines.add(engine);
        }
    }

    @Override
    public void scheduleAll(Instant[] due) {
        DurableTasks tasks = engines.get(0).tasks();
        TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(first));
        for (int from = 0; from < due.length; from += 1000) {
            int start = from;
            int end = Math.min(due.length, from + 1000);
            transaction.executeWithoutResult(status -> {
                for (int i = start; i < end; i++) {
                    tasks.schedule(HANDLER, Integer.toString(i), due[i], null);
                }
            });
        }
    }

    @Override
    public void close() {
        engines.forEach(engine -> engine.stop(Duration.ofSeconds(5)));
        engines.clear();
    }
}
