package org.rddp.error;

import java.util.Optional;

/**
 * One row of the Terminate error tables: Layer, EType and Error Code (RFC 5040 §4.8 Fig. 9, RFC 5041 §7.2,
 * RFC 5044 §8, RFC 6581 §8). Each table is an enum; this interface unites them for the Terminate header.
 */
public sealed interface TerminateCause permits RdmapError, DdpError, MpaError {

    /** The layer that detected the error. */
    ErrorLayer layer();

    /** The 4-bit error type. */
    int etype();

    /** The 8-bit error code. */
    int code();

    /** The RFC's name for the error. */
    String description();

    /** The 16-bit registry value of RFC 6580 §3: Layer in bits 12-15, EType in 8-11, code in 0-7. */
    default int registryValue() {
        return layer().wire() << 12 | etype() << 8 | code();
    }

    /**
     * Whether a Terminate for this cause carries the DDP header of the offending segment and its length
     * (HdrCt M and D, RFC 5040 §4.8 Fig. 10): every DDP and RDMAP error except the Local Catastrophic ones,
     * and no LLP error.
     */
    default boolean carriesDdpHeader() {
        return layer() != ErrorLayer.LLP && etype() != 0;
    }

    /**
     * Whether a Terminate for this cause carries the RDMA Read Request header when the offending message is a
     * Read Request (HdrCt R, RFC 5040 §4.8 Fig. 10): the RDMAP Remote Protection errors.
     */
    default boolean carriesRdmaHeader() {
        return layer() == ErrorLayer.RDMAP && etype() == RdmapError.REMOTE_PROTECTION_ETYPE;
    }

    /**
     * The cause for a Layer/EType/Code triple read from the wire, if the RFCs define it. RDMAP Local
     * Catastrophic has no error code and accepts any value (RFC 5040 Fig. 9).
     */
    static Optional<TerminateCause> of(int layer, int etype, int code) {
        ErrorLayer errorLayer = ErrorLayer.byWire(layer);
        if (errorLayer == null) {
            return Optional.empty();
        }
        TerminateCause[] table = switch (errorLayer) {
            case RDMAP -> RdmapError.values();
            case DDP -> DdpError.values();
            case LLP -> MpaError.values();
        };
        if (errorLayer == ErrorLayer.RDMAP && etype == 0) {
            return Optional.of(RdmapError.LOCAL_CATASTROPHIC);
        }
        for (TerminateCause cause : table) {
            if (cause.etype() == etype && cause.code() == code) {
                return Optional.of(cause);
            }
        }
        return Optional.empty();
    }
}
