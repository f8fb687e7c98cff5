package io.timedjobs.scheduler.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Gives a {@code @Scheduled} method's job a stable name of its own, used in listings, meters, the
 * page and the cluster's tables instead of the one derived from bean and method ({@code
 * bean.method}): renaming the bean or the method then leaves the job what it was, its definition
 * and history included. A method with several {@code @Scheduled} gets {@code name#0}, {@code
 * name#1}, ... in their order, as derived names do.
 *
 * <pre>{@code
 * @JobName("billing.nightly-close")
 * @Scheduled(cron = "0 0 2 * * *")
 * void closeDay() { ... }
 * }</pre>
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface JobName {

    /** The job's name: 1 to 300 characters, the same on every instance. */
    String value();
}
