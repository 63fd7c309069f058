package org.rddp.exs;

/** Why an EXS operation failed, naming the socket and its state. */
public final class ExsException extends Exception {
    private static final long serialVersionUID = 1L;

    /** A failure described by {@code message}. */
    public ExsException(String message) {
        super(message);
    }

    /** A failure described by {@code message}, caused by {@code cause}. */
    public ExsException(String message, Throwable cause) {
        super(message, cause);
    }
}
