package org.rddp.rdmap;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class IrdOrdNegotiationTest {
    private static final int X = IrdOrdNegotiation.NO_NEGOTIATION;

    /** RFC 6581 §9.1, responder side: what it uses locally and what it replies. */
    @ParameterizedTest(name = "initiator IRD {0} ORD {1}, responder max IRD {2} wants ORD {3}, read RTR {4}")
    @CsvSource({
        // iIRD, iORD, maxIRD, wantORD, readRtr -> IRD, ORD, replyIRD, replyORD
        "4,  4,  8,  8,  false, 4,  4,  4,  4",     // IRD covers the initiator's ORD; ORD at most its IRD
        "2,  16, 8,  1,  false, 8,  1,  8,  1",     // the initiator wants more than the responder has: it gets 8
        "0,  0,  8,  4,  false, 0,  0,  0,  0",     // no reads either way
        "0,  0,  8,  0,  true,  1,  0,  1,  0",     // IRD raised to 1 for a zero-length Read RTR
        "4,  16383, 8, 2, false, 8, 2,  16383, 2",  // initiator ORD 0x3FFF: keep the local IRD, echo 0x3FFF
        "16383, 4, 8, 6, false, 4,  6,  4,  16383", // initiator IRD 0x3FFF: keep the local ORD, echo 0x3FFF
    })
    void responderFollowsSection91(int initiatorIrd, int initiatorOrd, int maxIrd, int wantedOrd, boolean readRtr,
            int ird, int ord, int replyIrd, int replyOrd) {
        assertThat(IrdOrdNegotiation.respond(initiatorIrd, initiatorOrd, maxIrd, wantedOrd, readRtr))
                .isEqualTo(new IrdOrdNegotiation.Answer(ird, ord, replyIrd, replyOrd));
    }

    /** RFC 6581 §9.1, initiator side after the reply. */
    @ParameterizedTest(name = "local IRD {0} ORD {1}, reply IRD {2} ORD {3}")
    @CsvSource({
        // localIRD, localORD, replyIRD, replyORD -> IRD, ORD
        "4, 4, 4, 4, 4, 4",
        "4, 8, 2, 1, 4, 2",          // ORD at most the responder's IRD
        "2, 4, 4, 3, -1, 4",         // the responder's ORD needs more IRD than this side has: Terminate 0x06
        "4, 4, 16383, 2, 4, 4",      // reply IRD 0x3FFF: keep the local ORD
        "4, 4, 2, 16383, 4, 2",      // reply ORD 0x3FFF: keep the local IRD
    })
    void initiatorSettles(int localIrd, int localOrd, int replyIrd, int replyOrd, int ird, int ord) {
        assertThat(IrdOrdNegotiation.settle(localIrd, localOrd, replyIrd, replyOrd)).containsExactly(ird, ord);
    }

    @org.junit.jupiter.api.Test
    void afterASuccessfulExchangeNeitherSideCanOverrunTheOther() {
        for (int iIrd = 0; iIrd < 6; iIrd++) {
            for (int iOrd = 0; iOrd < 6; iOrd++) {
                for (int maxIrd = 0; maxIrd < 6; maxIrd++) {
                    IrdOrdNegotiation.Answer answer = IrdOrdNegotiation.respond(iIrd, iOrd, maxIrd, 5, false);
                    int[] settled = IrdOrdNegotiation.settle(iIrd, iOrd, answer.replyIrd(), answer.replyOrd());
                    assertThat(settled[0]).isGreaterThanOrEqualTo(0);
                    assertThat(settled[1]).as("initiator ORD <= responder IRD").isLessThanOrEqualTo(answer.ird());
                    assertThat(answer.ord()).as("responder ORD <= initiator IRD").isLessThanOrEqualTo(settled[0]);
                }
            }
        }
    }
}
