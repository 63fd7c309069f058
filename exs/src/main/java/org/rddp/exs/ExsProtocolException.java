package org.rddp.exs;

/** The peer broke the EXS protocol: a message that does not decode, or one the state of the socket forbids. */
public final class ExsProtocolException extends Exception {
    private static final long serialVersionUID = 1L;

    /** What the peer did. */
    public ExsProtocolException(String detail) {
        super(detail);
    }
}
