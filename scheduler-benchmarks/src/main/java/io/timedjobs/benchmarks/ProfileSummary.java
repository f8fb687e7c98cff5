package io.timedjobs.benchmarks;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedMethod;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * Sums up the CPU samples of a JFR recording: the methods on top of the sampled stacks (self), and
 * the engine's and adapter's methods ({@code io.timedjobs.scheduler}) anywhere on them (inclusive),
 * as shares of the samples, for the threads whose name contains a filter. This is how the profiles
 * in RESULTS.md were read.
 *
 * <pre>
 * java -jar scheduler-benchmarks/target/benchmarks.jar ChurnBenchmark.twoProducers -p peer=lf -f 1 \
 *     -jvmArgsAppend "-XX:StartFlightRecording=filename=churn.jfr,settings=profile"
 * java -cp scheduler-benchmarks/target/benchmarks.jar io.timedjobs.benchmarks.ProfileSummary churn.jfr [thread] [rows]
 * </pre>
 */
public final class ProfileSummary {

    private ProfileSummary() {}

    public static void main(String[] args) throws IOException {
        if (args.length < 1) {
            System.out.println("usage: ProfileSummary <recording.jfr> [thread name part] [rows]");
            return;
        }
        String threadPart = args.length > 1 ? args[1] : "";
        int rows = args.length > 2 ? Integer.parseInt(args[2]) : 20;
        Map<String, Integer> self = new HashMap<>();
        Map<String, Integer> inclusive = new HashMap<>();
        int samples = 0;
        for (RecordedEvent event : RecordingFile.readAllEvents(Path.of(args[0]))) {
            if (!event.getEventType().getName().equals("jdk.ExecutionSample")) {
                continue;
            }
            RecordedThread thread = event.getThread("sampledThread");
            String name = thread == null ? "" : String.valueOf(thread.getJavaName());
            RecordedStackTrace stack = event.getStackTrace();
            if (!name.contains(threadPart) || stack == null || stack.getFrames().isEmpty()) {
                continue;
            }
            samples++;
            List<RecordedFrame> frames = stack.getFrames();
            self.merge(describe(frames.get(0).getMethod()), 1, Integer::sum);
            Set<String> seen = new HashSet<>();
            for (RecordedFrame frame : frames) {
                if (!frame.getMethod().getType().getName().startsWith("io.timedjobs.scheduler")) {
                    continue;
                }
                String method = describe(frame.getMethod());
                if (seen.add(method)) {
                    inclusive.merge(method, 1, Integer::sum);
                }
            }
        }
        System.out.println("# " + samples + " CPU samples of threads named *" + threadPart + "* in " + args[0]);
        print("self", self, samples, rows);
        print("inclusive, io.timedjobs.scheduler", inclusive, samples, rows);
    }

    private static String describe(RecordedMethod method) {
        String type = method.getType().getName();
        return type.substring(type.lastIndexOf('.') + 1) + "." + method.getName();
    }

    private static void print(String title, Map<String, Integer> counts, int samples, int rows) {
        System.out.println();
        System.out.println("| " + title + " | share |");
        System.out.println("| --- | --- |");
        counts.entrySet().stream()
                .sorted(Map.Entry.<String, Integer>comparingByValue().reversed())
                .limit(rows)
                .forEach(e -> System.out.printf("| `%s` | %.1f%% |%n", e.getKey(), 100.0 * e.getValue() / samples));
    }
}
