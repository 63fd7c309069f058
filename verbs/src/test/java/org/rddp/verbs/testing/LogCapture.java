package org.rddp.verbs.testing;

import java.text.MessageFormat;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * What the library logs through {@link System.Logger} under one name, at every level down to DEBUG, while it is open
 * (the JDK's default {@code System.Logger} is java.util.logging's): each line its level and its formatted message.
 */
public final class LogCapture implements AutoCloseable {
    private final Logger logger;
    private final Level before;
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final Handler handler = new Handler() {
        @Override
        public void publish(LogRecord record) {
            String message = record.getParameters() == null ? record.getMessage()
                    : MessageFormat.format(record.getMessage(), record.getParameters());
            lines.add(record.getLevel() + " " + message);
        }

        @Override
        public void flush() {
            // kept in memory
        }

        @Override
        public void close() {
            // nothing held
        }
    };

    private LogCapture(String name) {
        logger = Logger.getLogger(name);
        before = logger.getLevel();
        logger.setLevel(Level.FINE);
        logger.addHandler(handler);
    }

    /** Captures what {@code name} and the loggers under it log, DEBUG (FINE) and above. */
    public static LogCapture of(String name) {
        return new LogCapture(name);
    }

    /** The lines so far: {@code FINE message}, {@code SEVERE message}. */
    public List<String> lines() {
        return List.copyOf(lines);
    }

    @Override
    public void close() {
        logger.removeHandler(handler);
        logger.setLevel(before);
    }
}
