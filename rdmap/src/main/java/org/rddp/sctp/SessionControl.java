package org.rddp.sctp;

import java.util.Objects;
import java.util.Optional;
import org.rddp.rdmap.EnhancedConnectionData;
import org.rddp.wire.PrivateData;

/**
 * The message of a DDP Stream Session Control chunk (RFC 5043 §5.2.3, RFC 6581 §7), one record per function
 * code. Private data of any message, the 4-octet enhanced data included, is at most 512 octets; Terminate
 * carries none.
 */
public sealed interface SessionControl {

    /** The function code on the wire. */
    FunctionCode functionCode();

    /** The ULP's private data (after the enhanced data, if any). */
    PrivateData privateData();

    /** The RFC 6581 §9 enhanced data, for the enhanced codes that carry it. */
    default Optional<EnhancedConnectionData> enhancedData() {
        return Optional.empty();
    }

    /** Octets of private data on the wire, the enhanced data included. */
    default int privateDataLength() {
        return enhancedData().map(data -> EnhancedConnectionData.LENGTH).orElse(0) + privateData().length();
    }

    /** DDP Stream Session Initiate, 0x0001. */
    record Initiate(PrivateData privateData) implements SessionControl {
        /** Requires private data (possibly empty). */
        public Initiate {
            Objects.requireNonNull(privateData, "privateData");
        }

        @Override
        public FunctionCode functionCode() {
            return FunctionCode.INITIATE;
        }
    }

    /** DDP Stream Session Accept, 0x0002. */
    record Accept(PrivateData privateData) implements SessionControl {
        /** Requires private data (possibly empty). */
        public Accept {
            Objects.requireNonNull(privateData, "privateData");
        }

        @Override
        public FunctionCode functionCode() {
            return FunctionCode.ACCEPT;
        }
    }

    /** DDP Stream Session Reject, 0x0003: sent only at the ULP's direction (RFC 5043 §6.3). */
    record Reject(PrivateData privateData) implements SessionControl {
        /** Requires private data (possibly empty). */
        public Reject {
            Objects.requireNonNull(privateData, "privateData");
        }

        @Override
        public FunctionCode functionCode() {
            return FunctionCode.REJECT;
        }
    }

    /** DDP Stream Session Terminate, 0x0004: ends a session, or rejects one without the ULP (§6.4). */
    record Terminate() implements SessionControl {
        @Override
        public FunctionCode functionCode() {
            return FunctionCode.TERMINATE;
        }

        @Override
        public PrivateData privateData() {
            return PrivateData.EMPTY;
        }
    }

    /** Enhanced DDP Stream Session Initiate, 0x0005 (RFC 6581 §7). */
    record EnhancedInitiate(EnhancedConnectionData data, PrivateData privateData) implements SessionControl {
        /** Requires the enhanced data; ULP private data at most 508 octets. */
        public EnhancedInitiate {
            Objects.requireNonNull(data, "data");
            checkEnhancedLength(privateData);
        }

        @Override
        public FunctionCode functionCode() {
            return FunctionCode.ENHANCED_INITIATE;
        }

        @Override
        public Optional<EnhancedConnectionData> enhancedData() {
            return Optional.of(data);
        }
    }

    /** Enhanced DDP Stream Session Accept, 0x0006 (RFC 6581 §7). */
    record EnhancedAccept(EnhancedConnectionData data, PrivateData privateData) implements SessionControl {
        /** Requires the enhanced data; ULP private data at most 508 octets. */
        public EnhancedAccept {
            Objects.requireNonNull(data, "data");
            checkEnhancedLength(privateData);
        }

        @Override
        public FunctionCode functionCode() {
            return FunctionCode.ENHANCED_ACCEPT;
        }

        @Override
        public Optional<EnhancedConnectionData> enhancedData() {
            return Optional.of(data);
        }
    }

    /**
     * Enhanced DDP Stream Session Reject, 0x0007 (RFC 6581 §7): the ULP's private data and nothing else, 0 to 512
     * octets. RFC 6581 puts the enhanced data at the start of the private data of the Initiate and the Accept only
     * (§7: the ULP's data "MUST follow the enhanced RDMA connection establishment data in the DDP Stream Session
     * Initiate and the Enhanced DDP Stream Session Accept messages"; §9 names the same two chunks), so a receiver
     * that guessed whether a reject carries it would cut 4 octets off some ULP's private data. Both ends read it
     * the one way the text allows, and a reject's private data of any length arrives intact (an MPA reject differs:
     * its Reply frame carries the enhanced data, RFC 6581 §9).
     */
    record EnhancedReject(PrivateData privateData) implements SessionControl {
        /** Requires the private data (which may be empty). */
        public EnhancedReject {
            Objects.requireNonNull(privateData, "privateData");
        }

        @Override
        public FunctionCode functionCode() {
            return FunctionCode.ENHANCED_REJECT;
        }
    }

    private static void checkEnhancedLength(PrivateData privateData) {
        Objects.requireNonNull(privateData, "privateData");
        if (privateData.length() > PrivateData.MAX_LENGTH - EnhancedConnectionData.LENGTH) {
            throw new IllegalArgumentException("ULP private data of " + privateData.length() + " octets plus the "
                    + "4-octet enhanced data exceeds " + PrivateData.MAX_LENGTH);
        }
    }
}
