package io.timedjobs.scheduler;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * Called by the builder's options only, while a scheduler is built: the thread factories a
 * scheduler uses when it is given none, named platform threads or, on Java 21 and later, virtual
 * threads. The factories it returns are thread-safe.
 */
final class DefaultThreadFactories {

    private DefaultThreadFactories() {}

    /** Returns a factory of platform threads named {@code prefix} and a number counting from 1. */
    static ThreadFactory named(String prefix, boolean daemon) {
        return new NamedThreadFactory(prefix, daemon);
    }

    /**
     * Returns a factory of virtual threads named {@code prefix} and a number counting from 1, found
     * by reflection so that the module still runs on Java 17.
     *
     * @throws IllegalStateException on a JVM without virtual threads
     */
    static ThreadFactory virtual(String prefix) {
        try {
            Method ofVirtual = Thread.class.getMethod("ofVirtual");
            Object builder = ofVirtual.invoke(null);
            Class<?> builderType = Class.forName("java.lang.Thread$Builder");
            builder = builderType.getMethod("name", String.class, long.class).invoke(builder, prefix, 1L);
            return (ThreadFactory) builderType.getMethod("factory").invoke(builder);
        } catch (NoSuchMethodException | ClassNotFoundException | IllegalAccessException e) {
            throw virtualThreadsMissing(e);
        } catch (InvocationTargetException e) {
            throw virtualThreadsMissing(e.getCause());
        }
    }

    private static IllegalStateException virtualThreadsMissing(@Nullable Throwable cause) {
        return new IllegalStateException(
                "Virtual threads need Java 21 or later; this JVM is Java "
                        + Runtime.version().feature(),
                cause);
    }

    private static final class NamedThreadFactory implements ThreadFactory {
        private final String prefix;
        private final boolean daemon;
        private final AtomicInteger number = new AtomicInteger();

        NamedThreadFactory(String prefix, boolean daemon) {
            this.prefix = prefix;
            this.daemon = daemon;
        }

        @Override
        public Thread newThread(Runnable r) {
            Thread thread = new Thread(r, prefix + number.incrementAndGet());
            thread.setDaemon(daemon);
            return thread;
        }
    }
}
