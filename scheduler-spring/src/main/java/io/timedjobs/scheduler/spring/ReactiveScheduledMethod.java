package io.timedjobs.scheduler.spring;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.util.ReflectionUtils;

/**
 * Immutable; any thread. A reactive {@code @Scheduled} method (one returning a {@code Mono}, a
 * {@code Flux} or another {@code Publisher}, or a Kotlin {@code suspend} function) as Spring 6.1
 * and later schedule it, read from the runnable Spring made of it.
 *
 * <p>Spring invokes such a method once, at start-up, and schedules a package-private {@code
 * SubscribingRunnable} that subscribes to the publisher it returned at each fire (for a Kotlin
 * {@code suspend} function, a publisher that calls the function at each subscription). That
 * runnable has no accessor for its method, bean or publisher, so they are read from its fields by
 * reflection: {@code publisher}, {@code observationRegistrySupplier} and {@code contextSupplier},
 * the last a supplier of the observation context that holds the bean and the method (the same in
 * Spring 6.2 and 7.0). A runnable of that class whose fields are not as expected is refused with
 * an {@link IllegalStateException} naming the Spring version, so that start-up fails rather than
 * run the job on every instance. The {@link JobRegistry} names reactive jobs from it, and the
 * clustered jobs of {@code scheduler-jdbc} subscribe to its publisher.
 *
 * @param target the bean whose method it is
 * @param method the {@code @Scheduled} method
 * @param publisher the publisher subscribed to at each fire ({@code org.reactivestreams.Publisher})
 * @param observationRegistry supplies the registry of Spring's {@code tasks.scheduled.execution}
 *     observation
 * @param observationContext supplies the context of that observation
 */
public record ReactiveScheduledMethod(
        Object target,
        Method method,
        Object publisher,
        Supplier<?> observationRegistry,
        Supplier<?> observationContext) {

    /** The class of the runnable Spring schedules for a reactive {@code @Scheduled} method. */
    public static final String SUBSCRIBING_RUNNABLE =
            "org.springframework.scheduling.annotation.ScheduledAnnotationReactiveSupport$SubscribingRunnable";

    /**
     * Returns the reactive method behind a runnable Spring schedules, or null when the runnable is
     * not Spring's runnable of a reactive method.
     *
     * @throws IllegalStateException if it is, but its fields are not those of the Spring versions
     *     this code knows
     */
    public static @Nullable ReactiveScheduledMethod of(Runnable runnable) {
        Runnable inner = ScheduledJobNames.withoutOutcomeTracking(runnable);
        if (!inner.getClass().getName().equals(SUBSCRIBING_RUNNABLE)) {
            return null;
        }
        return read(inner);
    }

    /**
     * Reads the method, bean and publisher from Spring's runnable of a reactive method.
     *
     * @throws IllegalStateException if its fields are not those of the Spring versions this code knows
     */
    static ReactiveScheduledMethod read(Runnable inner) {
        Object publisher = read(inner, "publisher");
        Supplier<?> registry = supplier(inner, "observationRegistrySupplier");
        Supplier<?> context = supplier(inner, "contextSupplier");
        // The context supplier is a lambda that captured the bean and the method; the context it
        // makes keeps the bean's class only, so the bean is read from what the lambda captured.
        Object target = null;
        Method method = null;
        for (Field field : context.getClass().getDeclaredFields()) {
            if (Modifier.isStatic(field.getModifiers())) {
                continue;
            }
            ReflectionUtils.makeAccessible(field);
            Object value = ReflectionUtils.getField(field, context);
            if (value instanceof Method found && method == null) {
                method = found;
            } else if (value != null && target == null) {
                target = value;
            } else {
                throw changed(inner, "its contextSupplier captured more than a bean and a method");
            }
        }
        if (target == null || method == null) {
            throw changed(inner, "its contextSupplier did not capture a bean and a method");
        }
        return new ReactiveScheduledMethod(target, method, publisher, registry, context);
    }

    private static Object read(Runnable runnable, String name) {
        Field field = ReflectionUtils.findField(runnable.getClass(), name);
        if (field == null) {
            throw changed(runnable, "it has no field '" + name + "'");
        }
        ReflectionUtils.makeAccessible(field);
        Object value = ReflectionUtils.getField(field, runnable);
        if (value == null) {
            throw changed(runnable, "its field '" + name + "' is null");
        }
        return value;
    }

    private static Supplier<?> supplier(Runnable runnable, String name) {
        if (read(runnable, name) instanceof Supplier<?> supplier) {
            return supplier;
        }
        throw changed(runnable, "its field '" + name + "' is no Supplier");
    }

    private static IllegalStateException changed(Runnable runnable, String what) {
        return new IllegalStateException("Cannot run the reactive @Scheduled method " + runnable
                + " once per fire across instances: Spring Framework "
                + org.springframework.core.SpringVersion.getVersion() + " schedules it as a " + SUBSCRIBING_RUNNABLE
                + " unlike the versions this release of Timed Jobs knows (6.2, 7.0), or, in a native image, without"
                + " the reflection metadata to read it: " + what
                + ". Use a release of Timed Jobs made for this Spring version, or, to run the method on every"
                + " instance, give it a scheduler of its own (@Scheduled(scheduler = ...))");
    }
}
