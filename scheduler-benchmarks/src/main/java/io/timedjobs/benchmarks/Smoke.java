package io.timedjobs.benchmarks;

/**
 * Runs every scenario at about a hundredth of its size, in one process, so that a build can check
 * that none of them crashes. Its numbers mean nothing; it fails only when a scenario throws.
 *
 * <pre>
 * java -cp scheduler-benchmarks/target/benchmarks.jar io.timedjobs.benchmarks.Smoke
 * </pre>
 */
public final class Smoke {

    private Smoke() {}

    public static void main(String[] args) throws Exception {
        System.setProperty("bench.smoke", "true");
        // The smoke run measures nothing: another JMH run on the machine must not fail the build.
        System.setProperty("jmh.ignoreLock", "true");
        long start = System.nanoTime();
        String all = String.join(",", Peers.available(true));
        Lateness.main(new String[] {"1", all});
        Idle.main(new String[] {"1", all});
        Memory.main(new String[] {"1", all});
        Burst.main(new String[] {"1", all});
        io.timedjobs.benchmarks.cluster.ClusterBench.compare(new String[] {"1"});
        // The same with each instance in a JVM of its own, two of them (JobRunr and Quartz ran above).
        System.setProperty("bench.clusterPeers", "timed-jobs,db-scheduler");
        System.setProperty("bench.clusterProcesses", "true");
        System.setProperty("bench.clusterInstances", "2");
        io.timedjobs.benchmarks.cluster.ClusterBench.compare(new String[] {"1", "drain"});
        System.clearProperty("bench.clusterProcesses");
        System.clearProperty("bench.clusterInstances");
        System.clearProperty("bench.clusterPeers");
        io.timedjobs.benchmarks.cluster.IdleLoad.compare(new String[] {"1"});
        io.timedjobs.benchmarks.cluster.RemoteStart.compare(new String[] {"1"});
        io.timedjobs.benchmarks.cluster.JobFires.compare(new String[] {"1"});
        // Two fresh Boot applications, one start each: a start that fails is reported, not thrown.
        io.timedjobs.benchmarks.startup.StartupCost.compare(new String[] {"1", "boot,timed-jobs-jdbc-h2"});
        OneShot.main(new String[] {"1", Peers.LF + "," + Peers.STPE + "," + Peers.STPE_ROC});
        // JMH in this process (no fork), one short iteration per benchmark, two peers.
        Compare.main(new String[] {
            "Insert|Churn",
            "-f",
            "0",
            "-wi",
            "0",
            "-i",
            "1",
            "-r",
            "100ms",
            "-p",
            "peer=" + Peers.LF + "," + Peers.STPE,
            "-p",
            "pending=far",
            "-foe",
            "true",
            "-v",
            "SILENT"
        });
        System.out.printf("# smoke run of every scenario done in %.1f s%n", (System.nanoTime() - start) / 1e9);
        System.exit(0); // peers' stray daemon threads must not keep the build waiting
    }
}
