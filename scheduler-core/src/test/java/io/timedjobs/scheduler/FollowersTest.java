package io.timedjobs.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The sleeping followers, driven by seeded random operations against an ArrayDeque. */
class FollowersTest {

    /**
     * Registrations, deregistrations after a spurious wake-up, and wake-ups (one, as helpers, all)
     * take the most recent sleeper first; a worker is marked queued exactly while registered, and
     * as a helper only when woken as one.
     */
    @Test
    void shouldMatchDequeUnderRandomOperations() {
        SplittableRandom random = new SplittableRandom(ModelTasks.SEED);
        List<PoolThread> workers = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            workers.add(new PoolThread(new Thread(() -> {}))); // never started: unpark does nothing
        }
        for (int round = 0; round < 100; round++) {
            Followers followers = new Followers();
            ArrayDeque<PoolThread> model = new ArrayDeque<>();
            workers.forEach(w -> w.queued = false);
            for (int op = 0; op < 400; op++) {
                int choice = random.nextInt(10);
                PoolThread w = workers.get(random.nextInt(workers.size()));
                if (choice < 5) {
                    if (!w.queued) {
                        w.helper = true;
                        followers.add(w);
                        model.addLast(w);
                        assertThat(w.helper).isFalse();
                    }
                } else if (choice < 6) {
                    if (w.queued) {
                        followers.remove(w);
                        model.remove(w);
                    }
                } else if (choice < 8) {
                    PoolThread expected = model.pollLast();
                    assertThat(followers.pollLast()).isSameAs(expected);
                } else if (choice < 9) {
                    int n = random.nextInt(5);
                    for (int i = 0; i < n && !model.isEmpty(); i++) {
                        PoolThread woken = model.pollLast();
                        woken.helper = false;
                        followers.wakeHelpers(1);
                        assertThat(woken.helper).isTrue();
                    }
                } else if (random.nextInt(10) == 0) {
                    followers.wakeAll();
                    model.clear();
                }
                assertThat(followers.size()).isEqualTo(model.size());
                for (PoolThread x : workers) {
                    assertThat(x.queued).isEqualTo(model.contains(x));
                }
            }
        }
    }
}
