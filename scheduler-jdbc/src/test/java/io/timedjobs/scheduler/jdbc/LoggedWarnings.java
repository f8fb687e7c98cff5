package io.timedjobs.scheduler.jdbc;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.LoggerFactory;

/**
 * For tests, thread-safe: every event logged at WARN or above by any logger (the library's, the
 * drivers', the pools') from {@link #capture()} to {@link #close()}, and a count of every event per
 * level. Events filtered out by the test's logback configuration (below WARN for most loggers) are
 * not seen, so the counts below WARN cover only what the configuration lets through.
 */
public final class LoggedWarnings implements AutoCloseable {

    private final List<ILoggingEvent> warnings = new CopyOnWriteArrayList<>();
    private final Map<String, AtomicLong> perLevel = new TreeMap<>();
    private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    private final AppenderBase<ILoggingEvent> appender = new AppenderBase<>() {
        @Override
        protected void append(ILoggingEvent event) {
            synchronized (perLevel) {
                perLevel.computeIfAbsent(event.getLevel().toString(), level -> new AtomicLong())
                        .incrementAndGet();
            }
            if (event.getLevel().isGreaterOrEqual(Level.WARN)) {
                warnings.add(event);
            }
        }
    };

    private LoggedWarnings() {}

    /** Starts capturing; close to stop. */
    public static LoggedWarnings capture() {
        LoggedWarnings capture = new LoggedWarnings();
        capture.appender.setName("logged-warnings");
        capture.appender.start();
        capture.root.addAppender(capture.appender);
        return capture;
    }

    /** Returns the events at WARN or above so far, each as "LEVEL logger - message". */
    public List<String> lines() {
        return warnings.stream()
                .map(event -> event.getLevel() + " " + event.getLoggerName() + " - " + event.getFormattedMessage()
                        + (event.getThrowableProxy() == null
                                ? ""
                                : " (" + event.getThrowableProxy().getClassName() + ": "
                                        + event.getThrowableProxy().getMessage() + ")"))
                .toList();
    }

    /** Returns how many events were seen per level so far. */
    public Map<String, Long> countsPerLevel() {
        synchronized (perLevel) {
            Map<String, Long> counts = new TreeMap<>();
            perLevel.forEach((level, count) -> counts.put(level, count.get()));
            return counts;
        }
    }

    @Override
    public void close() {
        root.detachAppender(appender);
        appender.stop();
    }
}
