/**
 * Public API of the Timed Jobs engine: {@link io.timedjobs.scheduler.LeaderFollowerScheduler}, a
 * {@link java.util.concurrent.ScheduledExecutorService} whose workers share one leader-follower
 * delay queue, and the small interfaces that configure it.
 */
@NullMarked
package io.timedjobs.scheduler;

import org.jspecify.annotations.NullMarked;
