package io.timedjobs.scheduler.autoconfigure;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Map;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Spring Boot's health types, wherever the running Boot line keeps them: {@code
 * org.springframework.boot.health.contributor} since Boot 4, {@code
 * org.springframework.boot.actuate.health} before. Both have the same {@code HealthIndicator},
 * {@code Health.status(String)} and builder methods, so one jar serves both through this class.
 * Immutable; thread-safe.
 */
final class HealthApi {

    /** Spring Boot 4 and later. */
    static final String BOOT_4_PACKAGE = "org.springframework.boot.health.contributor";

    /** Spring Boot 3. */
    static final String BOOT_3_PACKAGE = "org.springframework.boot.actuate.health";

    private final Class<?> healthIndicator;
    private final Method status;
    private final Method withDetails;
    private final Method build;

    private HealthApi(ClassLoader classLoader, String packageName) {
        this.healthIndicator = ClassUtils.resolveClassName(packageName + ".HealthIndicator", classLoader);
        Class<?> health = ClassUtils.resolveClassName(packageName + ".Health", classLoader);
        Class<?> builder = ClassUtils.resolveClassName(packageName + ".Health$Builder", classLoader);
        this.status = method(health, "status", String.class);
        this.withDetails = method(builder, "withDetails", Map.class);
        this.build = method(builder, "build");
    }

    private static Method method(Class<?> type, String name, Class<?>... parameterTypes) {
        Method method = ReflectionUtils.findMethod(type, name, parameterTypes);
        if (method == null) {
            throw new IllegalStateException("No method " + name + " on " + type.getName());
        }
        return method;
    }

    /** Returns the health types of the Boot line on the class path, or null without actuator. */
    static @Nullable HealthApi find(ClassLoader classLoader) {
        for (String packageName : new String[] {BOOT_4_PACKAGE, BOOT_3_PACKAGE}) {
            if (ClassUtils.isPresent(packageName + ".HealthIndicator", classLoader)) {
                return new HealthApi(classLoader, packageName);
            }
        }
        return null;
    }

    /** The {@code HealthIndicator} interface. */
    Class<?> healthIndicatorType() {
        return healthIndicator;
    }

    /** Returns a {@code HealthIndicator} whose {@code health()} reports each new snapshot. */
    Object healthIndicator(Supplier<SchedulerHealth.Snapshot> snapshots, String description) {
        InvocationHandler handler = (proxy, method, args) -> {
            if (method.getName().equals("health") && method.getParameterCount() == 0) {
                return toHealth(snapshots.get());
            }
            if (method.isDefault()) {
                return InvocationHandler.invokeDefault(proxy, method, args);
            }
            return switch (method.getName()) {
                case "toString" -> description;
                case "hashCode" -> System.identityHashCode(proxy);
                case "equals" -> proxy == args[0];
                default -> throw new UnsupportedOperationException(method.toString());
            };
        };
        return Proxy.newProxyInstance(healthIndicator.getClassLoader(), new Class<?>[] {healthIndicator}, handler);
    }

    private Object toHealth(SchedulerHealth.Snapshot snapshot) {
        Object builder = ReflectionUtils.invokeMethod(status, null, snapshot.status());
        ReflectionUtils.invokeMethod(withDetails, builder, snapshot.details());
        Object health = ReflectionUtils.invokeMethod(build, builder);
        if (health == null) {
            throw new IllegalStateException("Health builder returned null");
        }
        return health;
    }
}
