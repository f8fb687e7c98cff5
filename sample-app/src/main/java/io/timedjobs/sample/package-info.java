/**
 * Sample application of the Timed Jobs starter: {@code @Scheduled} jobs of every kind and one-off
 * reminders scheduled over HTTP, all on the auto-configured scheduler.
 */
@NullMarked
package io.timedjobs.sample;

import org.jspecify.annotations.NullMarked;
