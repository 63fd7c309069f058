package org.rddp.verbs;

/** Outcomes of posting a work request: expected conditions, returned, never thrown. */
public final class PostStatus {
    /** Queued. */
    public static final int OK = 0;
    /** The queue is full; poll completions and try again. */
    public static final int QUEUE_FULL = 1;
    /** The queue pair is not in a state that takes this request (sends need RTS; receives IDLE, RTS or CLOSING). */
    public static final int NOT_RTS = 2;

    private PostStatus() {
    }

    /** A name for a status, for messages. */
    public static String name(int status) {
        return switch (status) {
            case OK -> "OK";
            case QUEUE_FULL -> "QUEUE_FULL";
            case NOT_RTS -> "NOT_RTS";
            default -> "status " + status;
        };
    }
}
