/**
 * Public API of the Timed Jobs engine: {@link io.timedjobs.scheduler.LeaderFollowerScheduler}, a
 * {@link java.util.concurrent.ScheduledExecutorService} whose workers share one leader-follower
 * delay queue, and the small interfaces that configure it.
 *
 * <p>The engine's internals live here too, as package-private classes: the delay queue, the task
 * objects and the worker pool. Only the public types are API; the others may change in any
 * release. One package keeps the internals out of the public surface (none has to be public for
 * the scheduler to reach it), and lets them use the interfaces above without a package cycle.
 */
@NullMarked
package io.timedjobs.scheduler;

import org.jspecify.annotations.NullMarked;
