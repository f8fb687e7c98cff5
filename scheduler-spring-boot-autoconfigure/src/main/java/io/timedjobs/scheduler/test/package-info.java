/**
 * Test support: {@link io.timedjobs.scheduler.test.AutoConfigureManualTicker} runs an application's
 * schedulers on a manual ticker in a {@code @SpringBootTest}.
 */
@NullMarked
package io.timedjobs.scheduler.test;

import org.jspecify.annotations.NullMarked;
