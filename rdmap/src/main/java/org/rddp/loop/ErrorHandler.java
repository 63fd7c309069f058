package org.rddp.loop;

/**
 * What a {@link Loop} does with a throwable that one of its commands, its poller or a stream on it raised (Agrona's
 * {@code ErrorHandler}): the loop has counted it and goes on; the handler makes it seen. Runs on the loop's thread,
 * so it must not block; what it throws is printed and otherwise ignored. One handler serves every loop of a
 * connection manager ({@link Progress#withErrorHandler}).
 */
@FunctionalInterface
public interface ErrorHandler {
    /**
     * Logs the loop's name and the throwable at ERROR through {@link System.Logger} ({@code org.rddp.loop}), which
     * by default prints it and its stack trace on standard error: the default.
     */
    ErrorHandler LOGGING = (loop, error) -> System.getLogger("org.rddp.loop").log(System.Logger.Level.ERROR,
            "rddp: loop " + loop.name() + " on thread " + Thread.currentThread().getName() + " went on after: "
                    + error, error);

    /**
     * {@code error} reached {@code loop}: a stream it touched has been ended (a local catastrophic error, RFC 5040
     * §7.1) where the loop could tell which one, and the loop runs on.
     */
    void onError(Loop loop, Throwable error);
}
