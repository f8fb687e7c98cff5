/**
 * What an operator sees of the jobs: the model of the {@code timedjobs} actuator endpoint and of
 * the live page at {@code /timed-jobs}, and the endpoint itself.
 */
@NullMarked
package io.timedjobs.scheduler.dashboard;

import org.jspecify.annotations.NullMarked;
