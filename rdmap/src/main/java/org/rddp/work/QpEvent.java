package org.rddp.work;

/** Asynchronous queue pair events, reported outside the completion queues. */
public enum QpEvent {
    /** The stream is up and the queue pair entered RTS. */
    ESTABLISHED,
    /** This side detected a protocol or local error and sent a Terminate. */
    TERMINATE_SENT,
    /** The peer sent a Terminate. */
    TERMINATE_RECEIVED,
    /** The LLP stream failed or was aborted. */
    CONNECTION_LOST,
    /** The stream closed gracefully. */
    DISCONNECTED,
    /**
     * The LLP moved the stream to another path and the connection goes on, nothing lost (verbs' path migration): an
     * SCTP association's path failed, came back or stopped being the primary. The detail names the paths.
     */
    PATH_MIGRATED
}
