package org.rddp.error;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TerminateCauseTest {

    /** Every row of RFC 5040 Fig. 9, RFC 5041 §7.2, RFC 5044 §8 and RFC 6581 §8, as the RFCs print them. */
    @ParameterizedTest(name = "{0}/{1}/{2} {3}")
    @CsvSource({
        // RFC 5040 §4.8 Figure 9, Layer 0 RDMAP
        "0, 0, 0x00, LOCAL_CATASTROPHIC",
        "0, 1, 0x00, REMOTE_PROTECTION_INVALID_STAG",
        "0, 1, 0x01, REMOTE_PROTECTION_BASE_OR_BOUNDS",
        "0, 1, 0x02, REMOTE_PROTECTION_ACCESS_RIGHTS",
        "0, 1, 0x03, REMOTE_PROTECTION_STAG_NOT_ASSOCIATED",
        "0, 1, 0x04, REMOTE_PROTECTION_TO_WRAP",
        "0, 1, 0x09, REMOTE_PROTECTION_CANNOT_INVALIDATE",
        "0, 1, 0xFF, REMOTE_PROTECTION_UNSPECIFIED",
        "0, 2, 0x05, REMOTE_OPERATION_INVALID_VERSION",
        "0, 2, 0x06, REMOTE_OPERATION_UNEXPECTED_OPCODE",
        "0, 2, 0x07, REMOTE_OPERATION_CATASTROPHIC_STREAM",
        "0, 2, 0x08, REMOTE_OPERATION_CATASTROPHIC_GLOBAL",
        "0, 2, 0x09, REMOTE_OPERATION_CANNOT_INVALIDATE",
        "0, 2, 0xFF, REMOTE_OPERATION_UNSPECIFIED",
        // RFC 5041 §7.2, Layer 1 DDP
        "1, 0, 0x00, LOCAL_CATASTROPHIC",
        "1, 1, 0x00, TAGGED_INVALID_STAG",
        "1, 1, 0x01, TAGGED_BASE_OR_BOUNDS",
        "1, 1, 0x02, TAGGED_STAG_NOT_ASSOCIATED",
        "1, 1, 0x03, TAGGED_TO_WRAP",
        "1, 1, 0x04, TAGGED_INVALID_VERSION",
        "1, 2, 0x01, UNTAGGED_INVALID_QN",
        "1, 2, 0x02, UNTAGGED_NO_BUFFER",
        "1, 2, 0x03, UNTAGGED_MSN_RANGE",
        "1, 2, 0x04, UNTAGGED_INVALID_MO",
        "1, 2, 0x05, UNTAGGED_MESSAGE_TOO_LONG",
        "1, 2, 0x06, UNTAGGED_INVALID_VERSION",
        // RFC 5044 §8 and RFC 6581 §8, Layer 2 LLP, EType 0 MPA
        "2, 0, 0x01, TCP_CONNECTION_LOST",
        "2, 0, 0x02, CRC_ERROR",
        "2, 0, 0x03, MARKER_LENGTH_DISAGREE",
        "2, 0, 0x04, INVALID_REQUEST_OR_REPLY",
        "2, 0, 0x05, LOCAL_CATASTROPHIC",
        "2, 0, 0x06, INSUFFICIENT_IRD",
        "2, 0, 0x07, NO_MATCHING_RTR",
    })
    void everyRfcRowMapsToItsEnumConstant(int layer, int etype, String code, String name) {
        int value = Integer.decode(code);
        TerminateCause cause = TerminateCause.of(layer, etype, value).orElseThrow();
        assertThat(((Enum<?>) cause).name()).isEqualTo(name);
        assertThat(cause.layer().wire()).isEqualTo(layer);
        assertThat(cause.etype()).isEqualTo(etype);
        assertThat(cause.code()).isEqualTo(value);
        assertThat(cause.registryValue()).isEqualTo(layer << 12 | etype << 8 | value);
    }

    @Test
    void tablesHoldExactlyTheRfcRows() {
        assertThat(RdmapError.values()).hasSize(14);
        assertThat(DdpError.values()).hasSize(12);
        assertThat(MpaError.values()).hasSize(7);
    }

    @Test
    void everyConstantRoundTripsThroughItsWireValues() {
        List<TerminateCause> all = new ArrayList<>();
        Stream.of(RdmapError.values(), DdpError.values(), MpaError.values()).forEach(t -> all.addAll(List.of(t)));
        for (TerminateCause cause : all) {
            assertThat(TerminateCause.of(cause.layer().wire(), cause.etype(), cause.code())).contains(cause);
        }
    }

    @Test
    void rdmapLocalCatastrophicAcceptsAnyCode() {
        // RFC 5040 Fig. 9: "This error type does not have an error code. Any value in this field is acceptable."
        assertThat(TerminateCause.of(0, 0, 0x5A)).contains(RdmapError.LOCAL_CATASTROPHIC);
    }

    @Test
    void undefinedTriplesHaveNoCause() {
        assertThat(TerminateCause.of(3, 0, 0)).isEmpty(); // no layer 3
        assertThat(TerminateCause.of(1, 2, 0x00)).isEmpty(); // no untagged code 0
        assertThat(TerminateCause.of(1, 3, 0x00)).isEmpty(); // EType 3 is reserved for the LLP
        assertThat(TerminateCause.of(2, 0, 0x00)).isEmpty();
        assertThat(TerminateCause.of(2, 0, 0x08)).isEmpty();
        assertThat(TerminateCause.of(0, 1, 0x05)).isEmpty();
    }

    @Test
    void headerCopiesFollowFigure10() {
        assertThat(RdmapError.LOCAL_CATASTROPHIC.carriesDdpHeader()).isFalse();
        assertThat(RdmapError.REMOTE_PROTECTION_INVALID_STAG.carriesDdpHeader()).isTrue();
        assertThat(RdmapError.REMOTE_PROTECTION_INVALID_STAG.carriesRdmaHeader()).isTrue();
        assertThat(RdmapError.REMOTE_OPERATION_UNEXPECTED_OPCODE.carriesDdpHeader()).isTrue();
        assertThat(RdmapError.REMOTE_OPERATION_UNEXPECTED_OPCODE.carriesRdmaHeader()).isFalse();
        assertThat(DdpError.TAGGED_BASE_OR_BOUNDS.carriesDdpHeader()).isTrue();
        assertThat(DdpError.TAGGED_BASE_OR_BOUNDS.carriesRdmaHeader()).isFalse();
        assertThat(DdpError.LOCAL_CATASTROPHIC.carriesDdpHeader()).isFalse();
        assertThat(MpaError.CRC_ERROR.carriesDdpHeader()).isFalse();
        assertThat(MpaError.CRC_ERROR.carriesRdmaHeader()).isFalse();
    }

    @Test
    void layersHaveTheirWireValues() {
        assertThat(ErrorLayer.byWire(0)).isEqualTo(ErrorLayer.RDMAP);
        assertThat(ErrorLayer.byWire(1)).isEqualTo(ErrorLayer.DDP);
        assertThat(ErrorLayer.byWire(2)).isEqualTo(ErrorLayer.LLP);
        assertThat(ErrorLayer.byWire(3)).isNull();
    }
}
