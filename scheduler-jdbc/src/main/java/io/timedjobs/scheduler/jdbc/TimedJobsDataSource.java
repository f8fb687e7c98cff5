package io.timedjobs.scheduler.jdbc;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.beans.factory.annotation.Qualifier;

/**
 * For application code: marks the {@code DataSource} that Timed Jobs keeps its tables in, when the
 * application has several; on a {@code @Bean} method or an injection point, as {@code
 * @FlywayDataSource} does for Flyway. Without it, the one {@code DataSource} (or the
 * {@code @Primary} one) is used.
 */
@Target({ElementType.FIELD, ElementType.METHOD, ElementType.PARAMETER, ElementType.TYPE, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Qualifier
public @interface TimedJobsDataSource {}
