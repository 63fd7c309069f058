package org.rddp.transport.sctp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.rddp.rdmap.EnhancedConnectionData;
import org.rddp.sctp.SessionControl;
import org.rddp.transport.sctp.SessionStateMachine.State;
import org.rddp.wire.PrivateData;

/**
 * RFC 5043 §6 (with RFC 6581 §7's enhanced messages) as a table: from every state, every message and local action,
 * the state it leads to and what the machine has done. A chunk that fits no legal sequence ends the session with a
 * Session Terminate, and the stream drains until the peer's Terminate (§6.6).
 */
class SessionStateMachineTest {
    private static final PrivateData NONE = PrivateData.EMPTY;
    private static final EnhancedConnectionData DATA = EnhancedConnectionData.of(false, Set.of(), 4, 4);

    private final List<String> effects = new ArrayList<>();
    private final SessionStateMachine machine = new SessionStateMachine(new SessionStateMachine.Effects() {
        @Override
        public void send(SessionControl control) {
            effects.add("send " + name(control));
        }

        @Override
        public void initiated(SessionControl initiate) {
            effects.add("ask ULP");
        }

        @Override
        public void answered(SessionControl response) {
            effects.add("answer " + (response == null ? "none" : name(response)));
        }

        @Override
        public void ended(boolean graceful, String reason) {
            effects.add(graceful ? "ended" : "lost");
        }

        @Override
        public void startedOver() {
            effects.add("SSN 0");
        }
    });

    private static String name(SessionControl control) {
        return control.getClass().getSimpleName();
    }

    private static SessionControl message(String name) {
        return switch (name) {
            case "Initiate" -> new SessionControl.Initiate(NONE);
            case "EnhancedInitiate" -> new SessionControl.EnhancedInitiate(DATA, NONE);
            case "Accept" -> new SessionControl.Accept(NONE);
            case "EnhancedAccept" -> new SessionControl.EnhancedAccept(DATA, NONE);
            case "Reject" -> new SessionControl.Reject(NONE);
            case "EnhancedReject" -> new SessionControl.EnhancedReject(NONE);
            case "Terminate" -> new SessionControl.Terminate();
            default -> throw new IllegalArgumentException(name);
        };
    }

    /** Brings the machine to {@code state} by legal steps, then forgets what it did on the way. */
    private void reach(String state) {
        switch (state) {
            case "IDLE" -> { }
            case "INITIATE_SENT" -> machine.initiate(message("Initiate"));
            case "ENHANCED_SENT" -> machine.initiate(message("EnhancedInitiate"));
            case "PENDING_ULP" -> machine.received(message("Initiate"));
            case "OPEN" -> {
                machine.received(message("Initiate"));
                machine.answer(message("Accept"));
            }
            case "CLOSING" -> {
                reach("OPEN");
                machine.close();
            }
            case "DRAINING" -> machine.received(message("Accept"));
            default -> throw new IllegalArgumentException(state);
        }
        effects.clear();
    }

    private void act(String event) {
        switch (event) {
            case "segment" -> machine.segment(3);
            case "close" -> machine.close();
            case "abort" -> machine.abort();
            case "lost" -> machine.lost("association down");
            default -> machine.received(message(event));
        }
    }

    @ParameterizedTest(name = "{0} + {1} -> {2}: {3}")
    @CsvSource(delimiter = ';', value = {
        // no session: only an Initiate starts one; the ULP decides
        "IDLE; Initiate; PENDING_ULP; ask ULP",
        "IDLE; EnhancedInitiate; PENDING_ULP; ask ULP",
        "IDLE; Accept; DRAINING; send Terminate",
        "IDLE; Terminate; DRAINING; send Terminate",
        "IDLE; segment; DRAINING; send Terminate",
        "IDLE; close; IDLE; ",
        "IDLE; lost; IDLE; ",
        // active side: the answer must match the kind of Initiate (RFC 6581 §10); Terminate is a non-ULP reject
        "INITIATE_SENT; Accept; OPEN; answer Accept",
        "INITIATE_SENT; Reject; IDLE; SSN 0, answer Reject",
        "INITIATE_SENT; Terminate; IDLE; SSN 0, answer Terminate",
        "INITIATE_SENT; EnhancedAccept; DRAINING; send Terminate, answer none",
        "INITIATE_SENT; Initiate; DRAINING; send Terminate, answer none",
        "INITIATE_SENT; segment; DRAINING; send Terminate, answer none",
        "INITIATE_SENT; lost; IDLE; answer none",
        "ENHANCED_SENT; EnhancedAccept; OPEN; answer EnhancedAccept",
        "ENHANCED_SENT; EnhancedReject; IDLE; SSN 0, answer EnhancedReject",
        "ENHANCED_SENT; Accept; DRAINING; send Terminate, answer none",
        // passive side, the ULP deciding: the initiator may give up; nothing else is legal
        "PENDING_ULP; Terminate; IDLE; SSN 0",
        "PENDING_ULP; Initiate; DRAINING; send Terminate",
        "PENDING_ULP; segment; DRAINING; send Terminate",
        // open: segments both ways; the peer's Terminate is answered with this side's; no other control
        "OPEN; segment; OPEN; ",
        "OPEN; Terminate; IDLE; send Terminate, SSN 0, ended",
        "OPEN; close; CLOSING; send Terminate",
        "OPEN; abort; DRAINING; send Terminate, lost", // the peer's Terminate is still to come (§6.6)
        "OPEN; lost; IDLE; lost",
        "OPEN; Accept; DRAINING; send Terminate, lost",
        "OPEN; Initiate; DRAINING; send Terminate, lost",
        // closing: the peer's Terminate ends it; its segments sent before that are still delivered
        "CLOSING; segment; CLOSING; ",
        "CLOSING; Terminate; IDLE; SSN 0, ended",
        "CLOSING; abort; DRAINING; lost",
        "CLOSING; Accept; DRAINING; lost",
        // draining: only the peer's Terminate frees the stream (the shell also lets an Initiate at DDP-SSN 0 restart
        // it: DrainingStreamTest); the rest is dropped
        "DRAINING; Terminate; IDLE; SSN 0",
        "DRAINING; Initiate; DRAINING; ",
        "DRAINING; segment; DRAINING; ",
        "DRAINING; close; DRAINING; ",
    })
    void everyStateAnswersEveryEventAsRfc5043Section6Says(String from, String event, State to, String expected) {
        reach(from);
        act(event);
        assertThat(machine.state()).isEqualTo(to);
        assertThat(String.join(", ", effects)).isEqualTo(expected == null ? "" : expected);
    }

    @Test
    void anOpenSessionCarriesSegmentsBothWays() {
        reach("OPEN");
        assertThat(machine.segment(3)).isTrue();
        assertThat(machine.sending()).isTrue();
    }

    @Test
    void aClosingSessionStillTakesThePeersSegmentsButSendsNone() {
        reach("CLOSING");
        assertThat(machine.segment(3)).as("the peer's segments before its Terminate").isTrue();
        assertThat(machine.sending()).as("nothing goes out after this side's Terminate").isFalse();
    }

    @Test
    void theUlpAnswersOnlyAPendingInitiate() {
        reach("OPEN");
        assertThatThrownBy(() -> machine.answer(message("Accept"))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("OPEN");
    }

    @Test
    void aTerminateAnswersAnInitiateNobodyCanTake() {
        machine.received(message("Initiate"));
        machine.answer(message("Terminate")); // a non-ULP reject (§6.4)
        assertThat(machine.state()).isEqualTo(State.IDLE);
        assertThat(effects).containsExactly("ask ULP", "send Terminate", "SSN 0");
    }

    @Test
    void anIllegalChunkIsRecordedWithWhereItCame() {
        machine.received(message("Reject"));
        assertThat(machine.lastIllegal()).contains("with no session");
    }

    /** RFC 5043 §10: chunks ahead of their turn are kept only for a session this side takes part in. */
    @ParameterizedTest(name = "{0}: holds early chunks {1}")
    @CsvSource({"IDLE, false", "INITIATE_SENT, true", "PENDING_ULP, false", "OPEN, true", "CLOSING, true",
        "DRAINING, false"})
    void earlyChunksAreKeptOnlyForASessionThisSideTakesPartIn(String state, boolean holds) {
        reach(state);
        assertThat(machine.holdsEarly()).isEqualTo(holds);
    }

    @Test
    void aSessionThePeerEndedHoldsNothingMoreEarly() {
        reach("CLOSING");
        machine.received(message("Terminate"));
        assertThat(machine.holdsEarly()).isFalse();
    }

    /**
     * A stream drains to the peer's Terminate only where the peer had a session: after an illegal chunk with no
     * session (or one refusing an Initiate) no Terminate will come, and only a new Initiate frees it.
     */
    @ParameterizedTest(name = "illegal in {0}: waits for the peer's Terminate {1}")
    @CsvSource({"IDLE, false", "PENDING_ULP, false", "INITIATE_SENT, true", "OPEN, true", "CLOSING, true"})
    void aDrainWaitsForThePeersTerminateOnlyWhereThePeerHadASession(String state, boolean awaits) {
        reach(state);
        machine.illegal("a test's");
        assertThat(machine.state()).isEqualTo(State.DRAINING);
        assertThat(machine.drainsToTerminate()).isEqualTo(awaits);
    }

    @Test
    void anAbortDrainsToThePeersTerminate() {
        reach("OPEN");
        machine.abort();
        assertThat(machine.drainsToTerminate()).isTrue();
        effects.clear();
        machine.received(message("Terminate"));
        assertThat(machine.state()).isEqualTo(State.IDLE);
        assertThat(effects).containsExactly("SSN 0");
    }

    @Test
    void aRestartFreesADrainingStreamForTheNextSession() {
        reach("DRAINING");
        machine.restart();
        assertThat(machine.state()).isEqualTo(State.IDLE);
        assertThat(effects).containsExactly("SSN 0");
        machine.received(message("Initiate"));
        assertThat(machine.state()).isEqualTo(State.PENDING_ULP);
    }
}
