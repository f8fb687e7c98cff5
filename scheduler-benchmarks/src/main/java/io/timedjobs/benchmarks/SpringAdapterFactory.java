package io.timedjobs.benchmarks;

import io.timedjobs.scheduler.LeaderFollowerScheduler;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import org.springframework.scheduling.TaskScheduler;

/**
 * Builds our Spring adapter by reflection, so that this module compiles whether or not the adapter
 * exists yet: it wraps an engine built here when it has a constructor taking one, or else is
 * configured through setters the way Spring's own schedulers are.
 */
final class SpringAdapterFactory {

    private SpringAdapterFactory() {}

    static TaskScheduler create(int workers, String threadPrefix) {
        try {
            Class<?> type = Class.forName(Peers.SPRING_ADAPTER_CLASS);
            for (Constructor<?> constructor : type.getConstructors()) {
                Class<?>[] parameters = constructor.getParameterTypes();
                if (parameters.length == 1 && parameters[0].isAssignableFrom(LeaderFollowerScheduler.class)) {
                    LeaderFollowerScheduler engine = LeaderFollowerScheduler.builder()
                            .poolSize(workers)
                            .threadNamePrefix(threadPrefix)
                            .daemon(true)
                            .build();
                    return start((TaskScheduler) constructor.newInstance(engine));
                }
            }
            Object adapter = type.getConstructor().newInstance();
            call(adapter, "setPoolSize", int.class, workers);
            call(adapter, "setThreadNamePrefix", String.class, threadPrefix);
            call(adapter, "setDaemon", boolean.class, true);
            return start((TaskScheduler) adapter);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("Cannot build " + Peers.SPRING_ADAPTER_CLASS, e);
        }
    }

    private static TaskScheduler start(TaskScheduler adapter) throws ReflectiveOperationException {
        for (String name : new String[] {"initialize", "afterPropertiesSet", "start"}) {
            if (invokeIfPresent(adapter, name)) {
                break;
            }
        }
        return adapter;
    }

    static void close(Object adapter) {
        try {
            for (String name : new String[] {"shutdown", "destroy", "close", "stop"}) {
                if (invokeIfPresent(adapter, name)) {
                    return;
                }
            }
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("Cannot close " + adapter, e);
        }
    }

    private static boolean invokeIfPresent(Object target, String name) throws ReflectiveOperationException {
        Method method;
        try {
            method = target.getClass().getMethod(name);
        } catch (NoSuchMethodException e) {
            return false;
        }
        try {
            method.invoke(target);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof IllegalStateException) {
                return true; // e.g. "already initialized": started is what we wanted
            }
            throw e;
        }
        return true;
    }

    private static <T> void call(Object target, String name, Class<T> type, T value)
            throws ReflectiveOperationException {
        try {
            target.getClass().getMethod(name, type).invoke(target, value);
        } catch (NoSuchMethodException ignored) {
            // an option the adapter does not have: keep its default
        }
    }
}
