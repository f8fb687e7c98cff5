package io.timedjobs.scheduler.jdbc.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * A graceful stop begins no fire and waits, while the instance still beats, for the fires going on
 * and the run leases held: the others would take a lease over from an instance that left.
 */
class DepartureTest {

    @Test
    void shouldWaitForAFireBegunBeforeTheStopAndRefuseAnyAfter() throws Exception {
        Departure departure = new Departure();
        assertThat(departure.beginFire()).isTrue(); // a fire going on, as the stop begins

        CompletableFuture<Boolean> left = CompletableFuture.supplyAsync(() -> leave(departure, Duration.ofSeconds(30)));
        // the stop has set the flag once a new fire is refused; it still waits for the one going on
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> {
            if (departure.beginFire()) {
                departure.endFire();
                return false;
            }
            return true;
        });
        assertThat(left).isNotDone();

        departure.endFire();

        assertThat(left.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(departure.beginFire()).as("no fire begins once left").isFalse();
        departure.rejoin();
        assertThat(departure.beginFire()).as("registered again").isTrue();
        departure.endFire();
    }

    @Test
    void shouldWaitForTheRunLeasesToBeGivenBack() throws Exception {
        Departure departure = new Departure();
        AtomicBoolean leaseHeld = new AtomicBoolean(true);

        CompletableFuture<Boolean> left = CompletableFuture.supplyAsync(() -> {
            try {
                return departure.leave(Duration.ofSeconds(30), () -> !leaseHeld.get());
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> !departure.beginFire());
        assertThat(left).isNotDone();

        leaseHeld.set(false);
        departure.changed(); // as a release does

        assertThat(left.get(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void shouldGiveUpWaitingForARunThatDoesNotEnd() throws Exception {
        Departure departure = new Departure();
        assertThat(departure.beginFire()).isTrue();

        assertThat(departure.leave(Duration.ofMillis(50), () -> true)).isFalse();
        assertThat(departure.beginFire()).isFalse();
    }

    /**
     * A stop marks the instance leaving before it refuses a fire, and reads who stays at most once
     * per given interval for all its jobs and fires, whatever the last read found: an instance that
     * starts while nobody stayed is found at the next interval.
     */
    @Test
    void shouldMarkLeavingFirstAndReadWhoStaysOncePerInterval() {
        java.util.List<String> calls = new java.util.concurrent.CopyOnWriteArrayList<>();
        AtomicBoolean othersStay = new AtomicBoolean(true);
        Departure departure = new Departure(new Departure.Peers() {
            @Override
            public void markLeaving() {
                boolean begins = departure().beginFire();
                if (begins) {
                    departure().endFire();
                }
                calls.add("mark, fires begin: " + begins);
            }

            @Override
            public boolean othersStaying() {
                calls.add("read");
                return othersStay.get();
            }

            private Departure departure() {
                return holder[0];
            }
        });
        holder[0] = departure;

        assertThat(leave(departure, Duration.ofSeconds(1))).isTrue();
        assertThat(departure.othersStaying(Duration.ofHours(1))).isTrue();
        assertThat(departure.othersStaying(Duration.ofHours(1)))
                .as("within the interval")
                .isTrue();
        othersStay.set(false);
        assertThat(departure.othersStaying(Duration.ZERO))
                .as("the interval passed")
                .isFalse();
        for (int fire = 0; fire < 100; fire++) {
            assertThat(departure.othersStaying(Duration.ofHours(1))).isFalse();
        }
        assertThat(calls).containsExactly("mark, fires begin: true", "read", "read");
        othersStay.set(true); // an instance started during the stop
        assertThat(departure.othersStaying(Duration.ZERO))
                .as("the interval passed after nobody stayed")
                .isTrue();
        assertThat(calls).containsExactly("mark, fires begin: true", "read", "read", "read");

        departure.rejoin();
        othersStay.set(true);
        assertThat(departure.othersStaying(Duration.ZERO))
                .as("read again after a rejoin")
                .isTrue();
    }

    private final Departure[] holder = new Departure[1];

    private static boolean leave(Departure departure, Duration timeout) {
        try {
            return departure.leave(timeout, () -> true);
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }
}
