package org.rddp.exs;

/**
 * One event of an {@link ExsQueue}: an operation that finished, carrying the handle (context) its caller gave.
 *
 * @param type    what finished
 * @param socket  the socket it belongs to; for {@link Type#ACCEPT}, the new connected socket
 * @param context the caller's handle for the operation
 * @param length  octets sent or received, for {@link Type#SEND} and {@link Type#RECV}
 * @param error   why it failed, or null when it succeeded
 */
public record ExsEvent(Type type, ExsSocket socket, Object context, long length, ExsException error) {

    /** What an event reports. */
    public enum Type {
        /** A {@link ExsSocket#connect} finished. */
        CONNECT,
        /** A {@link ExsSocket#accept} took a connection. */
        ACCEPT,
        /** A {@link ExsSocket#send} finished: the peer took the data and the memory is the caller's again. */
        SEND,
        /** A {@link ExsSocket#recv} finished: the data is in the caller's memory. */
        RECV,
        /**
         * The peer read the block of a persistent send made with {@link ExsFlag#NOTIFY}, once or more since the last
         * such event ({@code length}: the octets it read meanwhile); the block stays advertised.
         */
        READ,
        /** The connection ended: the caller closed it, the peer did, or it failed. */
        CLOSE
    }

    /** Whether the operation succeeded. */
    public boolean ok() {
        return error == null;
    }
}
