package io.timedjobs.scheduler.jdbc.cluster;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Thread-safe; kept by {@link JobStore}, told by the workers that take and give up run leases and
 * by the heartbeat's polls. Which jobs' run leases this instance holds, as far as it knows, and which
 * it gave up since the heartbeat's last poll: a run frozen past its lease ends the moment the process
 * resumes, before the heartbeat finds the silence, and its lease was held all through that silence.
 */
final class HeldLeases {

    private final Set<String> held = ConcurrentHashMap.newKeySet();

    /** Jobs whose lease was given up since the last poll, each with the number of its release. */
    private final Map<String, Long> releasedSincePoll = new ConcurrentHashMap<>();

    /** Numbers the releases, so that a poll forgets only the releases that came before it began. */
    private final AtomicLong releases = new AtomicLong();

    /**
     * The last release number seen as a poll began: a process frozen during a poll resumes inside it,
     * and the releases that come then are still named by the next poll.
     */
    private volatile long releasesAtPollStart;

    void took(String job) {
        held.add(job);
    }

    void released(String job) {
        releasedSincePoll.put(job, releases.incrementAndGet());
        held.remove(job);
    }

    /** The jobs whose lease this instance took and has not given up yet, sorted. */
    List<String> held() {
        return held.stream().sorted().toList();
    }

    /** The jobs whose lease is held, or was given up since the last poll ({@link #polled()}), sorted. */
    List<String> heldSinceLastPoll() {
        // held first: a release joins releasedSincePoll before it leaves held (see released), so
        // read in this order a lease given up meanwhile is seen in one set or the other
        Set<String> jobs = new TreeSet<>(held);
        jobs.addAll(releasedSincePoll.keySet());
        return List.copyOf(jobs);
    }

    /** Called as each poll of the heartbeat begins, before its silence check: marks the releases seen so far. */
    void pollBegins() {
        releasesAtPollStart = releases.get();
    }

    /** Called after each poll of the heartbeat: leases given up before it began are forgotten. */
    void polled() {
        long mark = releasesAtPollStart;
        releasedSincePoll.values().removeIf(release -> release <= mark);
    }
}
