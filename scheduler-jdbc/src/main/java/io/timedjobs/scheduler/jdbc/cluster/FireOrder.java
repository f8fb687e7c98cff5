package io.timedjobs.scheduler.jdbc.cluster;

import io.timedjobs.scheduler.Ticker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe; the view is written by the heartbeat's thread and read by the clustered jobs'
 * workers. In which order the live instances try a fire: rendezvous (highest random weight)
 * hashing of the job, the fire's nominal instant and each instance's name.
 *
 * <p>Every instance that knows the same live instances computes the same order for a fire, and the
 * orders of a job's fires fall evenly on the instances, fire by fire. When an instance joins or
 * leaves, only the fires it ranks first in (about one in n) change hands; the others keep theirs.
 * The view of who is alive is what the heartbeat last read (see {@link #seen}); it is not trusted
 * once older than it was given for, nor before the first read: then this instance ranks first for
 * every fire, and tries each at once, as without notices.
 *
 * <p>Nothing here decides who runs a fire: the fire's record in the database does. A view that is
 * wrong (an instance that died and still looks alive, one that joined and is not seen yet) costs an
 * extra attempt, or a fire tried a backup step late, never a fire run twice or lost.
 */
final class FireOrder {

    /** The live instances last read, and until when (ticker nanos) the read is trusted. */
    private record View(List<String> names, long trustedUntilNanos) {}

    private final String self;
    private final Ticker ticker;

    /** The latest view, or null before the first; replaced whole, never changed. */
    private volatile @Nullable View view;

    FireOrder(String self, Ticker ticker) {
        this.self = Objects.requireNonNull(self, "self");
        this.ticker = Objects.requireNonNull(ticker, "ticker");
    }

    /** An order for an instance that reads no live instances: it ranks first for every fire. */
    static FireOrder unknown() {
        return new FireOrder("", Ticker.system());
    }

    /**
     * Takes in the names of the instances alive now (this one is counted whether listed or not),
     * trusted for {@code trustedFor}: past it without a new read, this instance tries every fire at
     * once again.
     */
    void seen(Collection<String> liveNames, Duration trustedFor) {
        Set<String> names = new LinkedHashSet<>(liveNames);
        names.add(self);
        view = new View(List.copyOf(names), ticker.read() + trustedFor.toNanos());
    }

    /** Forgets the view: this instance tries every fire at once until the next read. */
    void forget() {
        view = null;
    }

    /** Returns the live instances in the view trusted now, or null when there is none. */
    @Nullable
    List<String> live() {
        View current = view;
        return current == null || ticker.read() - current.trustedUntilNanos() > 0 ? null : current.names();
    }

    /**
     * Returns this instance's rank for {@code fire} of {@code job} among the live instances: 0 if it
     * tries first, k if k instances come before it; 0 when no view is trusted now.
     */
    int rank(String job, Instant fire) {
        List<String> names = live();
        return names == null ? 0 : rank(job, fire, self, names);
    }

    /** Returns how many of {@code names} come before {@code instance} for {@code fire} of {@code job}. */
    static int rank(String job, Instant fire, String instance, Collection<String> names) {
        long fireMicros = ChronoUnit.MICROS.between(Instant.EPOCH, fire);
        long jobHash = hash(job);
        long own = weight(jobHash, fireMicros, instance);
        int before = 0;
        for (String other : names) {
            if (other.equals(instance)) {
                continue;
            }
            int order = Long.compareUnsigned(weight(jobHash, fireMicros, other), own);
            if (order > 0 || (order == 0 && other.compareTo(instance) < 0)) {
                before++;
            }
        }
        return before;
    }

    /**
     * The weight of an instance for one fire: the same on every JVM (no {@link String#hashCode} or
     * random seed), spread evenly over 64 bits.
     */
    private static long weight(long jobHash, long fireMicros, String instance) {
        return mix(mix(jobHash ^ fireMicros) ^ hash(instance));
    }

    /** FNV-1a over the name's UTF-8 bytes. */
    private static long hash(String text) {
        long hash = 0xcbf29ce484222325L;
        for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
            hash ^= b & 0xff;
            hash *= 0x100000001b3L;
        }
        return hash;
    }

    /** The finalizer of SplitMix64: a bijection whose every output bit depends on every input bit. */
    private static long mix(long value) {
        long z = value + 0x9e3779b97f4a7c15L;
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
