package io.timedjobs.benchmarks.startup.apps;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.ApplicationListener;

/**
 * Called by Spring Boot on the main thread once, when the application is ready. Measures a child
 * JVM of the STARTUP benchmark at that moment and prints one line for the parent:
 * {@code STARTUP <JVM uptime ms> <Boot's time taken ms> <RSS kB> <heap bytes after a full GC>
 * <classes loaded> <process CPU ms>}: the CPU time of all the process's threads (the JIT's and the
 * collector's included) up to that moment, which other load on the machine moves less than the
 * wall-clock figures. RSS is read first (a full GC may give memory back), then the heap after
 * {@link System#gc()}. The application then waits for the parent's {@code EXIT} on standard input
 * and stops as a closed context does.
 *
 * <p>Uses Spring Boot and the JDK only, so that it runs on every variant's class path.
 */
public final class Probe implements ApplicationListener<ApplicationReadyEvent> {

    /** Starts {@code application} with the arguments, prints the line when ready, exits on {@code EXIT}. */
    public static void run(Class<?> application, String[] args) throws IOException {
        SpringApplication spring = new SpringApplication(application);
        spring.setWebApplicationType(WebApplicationType.NONE);
        spring.addListeners(new Probe());
        spring.run(args);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            if (line.equals("EXIT")) {
                break;
            }
        }
        System.exit(0); // shutdown hooks close the context, as at a normal stop
    }

    @Override
    public void onApplicationEvent(ApplicationReadyEvent event) {
        long uptime = ManagementFactory.getRuntimeMXBean().getUptime();
        long cpu = ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os
                ? os.getProcessCpuTime() / 1_000_000
                : -1;
        long boot = event.getTimeTaken() == null ? -1 : event.getTimeTaken().toMillis();
        long rss = rssKilobytes();
        System.gc();
        long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        long classes = ManagementFactory.getClassLoadingMXBean().getLoadedClassCount();
        System.out.println("STARTUP " + uptime + " " + boot + " " + rss + " " + heap + " " + classes + " " + cpu);
        System.out.flush();
    }

    /** VmRSS from /proc/self/status, -1 where there is none (not Linux). */
    private static long rssKilobytes() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.substring(6).replace("kB", "").strip());
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux: no figure
        }
        return -1;
    }
}
