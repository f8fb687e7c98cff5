package io.timedjobs.benchmarks;

import io.netty.util.HashedWheelTimer;
import io.netty.util.Timeout;
import io.timedjobs.scheduler.LeaderFollowerScheduler;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.concurrent.SimpleAsyncTaskScheduler;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * The schedulers we compare, by name.
 *
 * <table>
 *   <tr><th>name</th><th>what</th></tr>
 *   <tr><td>{@code lf}</td><td>our engine, {@link LeaderFollowerScheduler}</td></tr>
 *   <tr><td>{@code lf-instant}</td><td>our engine, called the way an {@code Instant}-taking API is: the
 *       caller builds the start {@code Instant} from the clock, the scheduler reads the clock again
 *       to turn it into a delay. A control for the Spring adapter; only when named</td></tr>
 *   <tr><td>{@code lf-spring}</td><td>our Spring adapter, {@code LeaderFollowerTaskScheduler}, when on the class path</td></tr>
 *   <tr><td>{@code stpe}</td><td>the JDK's {@link ScheduledThreadPoolExecutor}, remove-on-cancel off (its default)</td></tr>
 *   <tr><td>{@code stpe-roc}</td><td>the same with remove-on-cancel on</td></tr>
 *   <tr><td>{@code spring-tpts}</td><td>Spring's {@link ThreadPoolTaskScheduler}</td></tr>
 *   <tr><td>{@code spring-simple}</td><td>Spring's {@link SimpleAsyncTaskScheduler} (one timer thread, a new thread per run)</td></tr>
 *   <tr><td>{@code netty-wheel}</td><td>Netty's {@link HashedWheelTimer}, default 100 ms tick (one thread whatever the worker count)</td></tr>
 *   <tr><td>{@code netty-wheel-1ms}</td><td>the same with a 1 ms tick</td></tr>
 *   <tr><td>{@code fjp}</td><td>a {@code new ForkJoinPool(workers)} used as a {@link ScheduledExecutorService}: JDK 25 and later only</td></tr>
 * </table>
 *
 * <p>Every peer is built with its defaults but for the worker count and the thread names; all
 * threads are daemons so that a forgotten close cannot hang a run.
 */
public final class Peers {

    /** Our engine: the baseline of every target is {@link #STPE}. */
    public static final String LF = "lf";

    public static final String LF_SPRING = "lf-spring";
    public static final String LF_INSTANT = "lf-instant";
    public static final String STPE = "stpe";
    public static final String STPE_ROC = "stpe-roc";
    public static final String SPRING_TPTS = "spring-tpts";
    public static final String SPRING_SIMPLE = "spring-simple";
    public static final String NETTY_WHEEL = "netty-wheel";
    public static final String NETTY_WHEEL_1MS = "netty-wheel-1ms";
    public static final String FJP = "fjp";

    static final String SPRING_ADAPTER_CLASS = "io.timedjobs.scheduler.spring.LeaderFollowerTaskScheduler";

    private Peers() {}

    /**
     * The peers this JVM can run, in a fixed order: the adapter only when its class is present,
     * the ForkJoinPool only on JDK 25 or later, and the 1 ms wheel only if asked for.
     */
    public static List<String> available(boolean withFineWheel) {
        List<String> names = new ArrayList<>();
        names.add(LF);
        if (springAdapterPresent()) {
            names.add(LF_SPRING);
        }
        names.add(STPE);
        names.add(STPE_ROC);
        names.add(SPRING_TPTS);
        names.add(SPRING_SIMPLE);
        names.add(NETTY_WHEEL);
        if (withFineWheel) {
            names.add(NETTY_WHEEL_1MS);
        }
        if (forkJoinPoolSchedules()) {
            names.add(FJP);
        }
        return names;
    }

    /**
     * Peers named by a comma-separated list, or all {@linkplain #available available} ones for
     * {@code null}, blank or {@code all}; names this JVM cannot run are dropped with a note.
     */
    public static List<String> select(String list, boolean withFineWheel) {
        List<String> all = available(true);
        all.add(LF_INSTANT);
        if (list == null || list.isBlank() || list.equals("all")) {
            return available(withFineWheel);
        }
        List<String> chosen = new ArrayList<>();
        for (String name : list.split(",")) {
            String n = name.trim();
            if (all.contains(n)) {
                chosen.add(n);
            } else {
                System.out.println("# peer '" + n + "' is not available in this JVM; skipped");
            }
        }
        return chosen;
    }

    public static boolean springAdapterPresent() {
        try {
            Class.forName(SPRING_ADAPTER_CLASS, false, Peers.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    /** Whether {@code ForkJoinPool} is a {@link ScheduledExecutorService} here (JDK 25+). */
    public static boolean forkJoinPoolSchedules() {
        return ScheduledExecutorService.class.isAssignableFrom(ForkJoinPool.class);
    }

    /** Builds the named peer with {@code workers} worker threads (where the peer has a pool). */
    public static SchedulerUnderTest create(String name, int workers) {
        String prefix = "b-" + shortName(name) + "-";
        switch (name) {
            case LF:
                return new Executor(
                        name,
                        prefix,
                        LeaderFollowerScheduler.builder()
                                .poolSize(workers)
                                .threadNamePrefix(prefix)
                                .daemon(true)
                                .build());
            case LF_SPRING:
                return new Spring(name, prefix, SpringAdapterFactory.create(workers, prefix), null);
            case LF_INSTANT: {
                LeaderFollowerScheduler engine = LeaderFollowerScheduler.builder()
                        .poolSize(workers)
                        .threadNamePrefix(prefix)
                        .daemon(true)
                        .build();
                Clock clock = Clock.systemDefaultZone();
                return new Executor(name, prefix, engine) {
                    @Override
                    public Object schedule(Runnable task, long delayNanos) {
                        Instant start = clock.instant().plusNanos(delayNanos); // as for the Spring peers
                        Instant now = clock.instant();
                        long delay = (start.getEpochSecond() - now.getEpochSecond()) * 1_000_000_000L
                                + (start.getNano() - now.getNano());
                        return engine.schedule(task, delay, TimeUnit.NANOSECONDS);
                    }
                };
            }
            case STPE:
            case STPE_ROC: {
                ScheduledThreadPoolExecutor stpe = new ScheduledThreadPoolExecutor(workers, named(prefix));
                stpe.setRemoveOnCancelPolicy(name.equals(STPE_ROC));
                return new Executor(name, prefix, stpe);
            }
            case SPRING_TPTS: {
                ThreadPoolTaskScheduler tpts = new ThreadPoolTaskScheduler();
                tpts.setPoolSize(workers);
                tpts.setThreadNamePrefix(prefix);
                tpts.setDaemon(true);
                tpts.initialize();
                return new Spring(name, prefix, tpts, tpts::shutdown) {
                    @Override
                    public void purge() {
                        tpts.getScheduledThreadPoolExecutor().purge();
                    }
                };
            }
            case SPRING_SIMPLE: {
                SimpleAsyncTaskScheduler simple = new SimpleAsyncTaskScheduler();
                simple.setThreadNamePrefix(prefix);
                simple.setDaemon(true);
                return new Spring(name, prefix, simple, simple::close);
            }
            case NETTY_WHEEL:
                return new Wheel(name, prefix, 100);
            case NETTY_WHEEL_1MS:
                return new Wheel(name, prefix, 1);
            case FJP: {
                Object pool = new ForkJoinPool(workers, namedForkJoin(prefix), null, false);
                if (!(pool instanceof ScheduledExecutorService)) {
                    throw new IllegalStateException(
                            "ForkJoinPool schedules tasks only on JDK 25 or later; this is " + Runtime.version());
                }
                // The pool's timer thread is named by the pool itself: "ForkJoinPool-N-delayScheduler".
                return new Executor(name, prefix + "|ForkJoinPool-", (ScheduledExecutorService) pool);
            }
            default:
                throw new IllegalArgumentException("Unknown peer '" + name + "'; known: " + available(true));
        }
    }

    /** A short tag for thread names, which Linux cuts to 15 characters. */
    static String shortName(String name) {
        switch (name) {
            case LF:
                return "lf";
            case LF_SPRING:
                return "lfs";
            case LF_INSTANT:
                return "lfi";
            case STPE:
                return "stpe";
            case STPE_ROC:
                return "stper";
            case SPRING_TPTS:
                return "tpts";
            case SPRING_SIMPLE:
                return "sats";
            case NETTY_WHEEL:
                return "hwt";
            case NETTY_WHEEL_1MS:
                return "hwt1";
            case FJP:
                return "fjp";
            default:
                return name;
        }
    }

    static ThreadFactory named(String prefix) {
        AtomicInteger number = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, prefix + number.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }

    private static ForkJoinPool.ForkJoinWorkerThreadFactory namedForkJoin(String prefix) {
        AtomicInteger number = new AtomicInteger();
        return pool -> {
            ForkJoinWorkerThread thread = ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(pool);
            thread.setName(prefix + number.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }

    /** Any {@link ScheduledExecutorService}: our engine, the JDK's executor, the ForkJoinPool. */
    static class Executor implements SchedulerUnderTest {
        private final String name;
        private final String prefix;
        private final ScheduledExecutorService executor;

        Executor(String name, String prefix, ScheduledExecutorService executor) {
            this.name = name;
            this.prefix = prefix;
            this.executor = executor;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public String threadPrefix() {
            return prefix;
        }

        @Override
        public Object schedule(Runnable task, long delayNanos) {
            return executor.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
        }

        @Override
        public boolean cancel(Object handle) {
            return ((Future<?>) handle).cancel(false);
        }

        @Override
        public void purge() {
            if (executor instanceof ScheduledThreadPoolExecutor) {
                ((ScheduledThreadPoolExecutor) executor).purge();
            }
        }

        @Override
        public void close() {
            executor.shutdownNow();
            try {
                executor.awaitTermination(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * A Spring {@link TaskScheduler}. Spring schedules one-shot tasks by {@code Instant}, so the
     * delay is turned into one with the scheduler's own clock, as an application would.
     */
    static class Spring implements SchedulerUnderTest {
        private final String name;
        private final String prefix;
        private final TaskScheduler scheduler;
        private final Clock clock;
        private final Runnable closer;

        Spring(String name, String prefix, TaskScheduler scheduler, Runnable closer) {
            this.name = name;
            this.prefix = prefix;
            this.scheduler = scheduler;
            this.clock = scheduler.getClock();
            this.closer = closer != null ? closer : () -> SpringAdapterFactory.close(scheduler);
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public String threadPrefix() {
            return prefix;
        }

        @Override
        public Object schedule(Runnable task, long delayNanos) {
            return scheduler.schedule(task, clock.instant().plusNanos(delayNanos));
        }

        @Override
        public boolean cancel(Object handle) {
            return ((Future<?>) handle).cancel(false);
        }

        @Override
        public void close() {
            closer.run();
        }
    }

    /** Netty's wheel timer: one thread that ticks, runs expired tasks itself. */
    static final class Wheel implements SchedulerUnderTest {
        private final String name;
        private final String prefix;
        private final HashedWheelTimer timer;

        Wheel(String name, String prefix, long tickMillis) {
            this.name = name;
            this.prefix = prefix;
            this.timer = new HashedWheelTimer(named(prefix), tickMillis, TimeUnit.MILLISECONDS);
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public String threadPrefix() {
            return prefix;
        }

        @Override
        public Object schedule(Runnable task, long delayNanos) {
            if (task instanceof BenchTask) {
                return timer.newTimeout((BenchTask) task, delayNanos, TimeUnit.NANOSECONDS);
            }
            return timer.newTimeout(timeout -> task.run(), delayNanos, TimeUnit.NANOSECONDS);
        }

        @Override
        public boolean cancel(Object handle) {
            return ((Timeout) handle).cancel();
        }

        @Override
        public void close() {
            timer.stop();
        }
    }
}
