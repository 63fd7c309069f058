package org.rddp.verbs;

import org.rddp.wire.PrivateData;

/**
 * What a responder answers with.
 *
 * @param privateData ULP private data for the initiator
 * @param ird         the most inbound RDMA Reads this side can queue
 * @param ord         the outbound RDMA Reads this side's ULP wants
 */
public record AcceptOptions(PrivateData privateData, int ird, int ord) {

    /** Validates. */
    public AcceptOptions {
        if (privateData == null || ird < 0 || ord < 0) {
            throw new IllegalArgumentException("private data is required and depths are not negative");
        }
    }
}
