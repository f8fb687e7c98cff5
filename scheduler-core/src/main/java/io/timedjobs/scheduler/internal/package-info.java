/**
 * Internals of the engine: the delay queue, the task objects and the worker pool. Nothing here is
 * API; it may change in any release.
 */
@NullMarked
package io.timedjobs.scheduler.internal;

import org.jspecify.annotations.NullMarked;
