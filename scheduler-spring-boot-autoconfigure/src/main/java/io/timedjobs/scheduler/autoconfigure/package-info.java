/**
 * Spring Boot auto-configuration of the Timed Jobs scheduler: the {@code taskScheduler} bean, its
 * {@code timed-jobs.*} properties and its Micrometer meters.
 */
@NullMarked
package io.timedjobs.scheduler.autoconfigure;

import org.jspecify.annotations.NullMarked;
