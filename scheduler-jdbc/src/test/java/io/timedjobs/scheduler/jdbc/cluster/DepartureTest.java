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

    private static boolean leave(Departure departure, Duration timeout) {
        try {
            return departure.leave(timeout, () -> true);
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }
}
