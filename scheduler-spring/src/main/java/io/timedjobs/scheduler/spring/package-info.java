/**
 * Spring integration of the Timed Jobs engine: {@link
 * io.timedjobs.scheduler.spring.LeaderFollowerTaskScheduler}, a Spring {@link
 * org.springframework.scheduling.TaskScheduler} backed by a {@link
 * io.timedjobs.scheduler.LeaderFollowerScheduler}. Usable with or without Spring Boot.
 */
@NullMarked
package io.timedjobs.scheduler.spring;

import org.jspecify.annotations.NullMarked;
