package org.rddp.transport.sctp;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.rddp.llp.Counters;
import org.rddp.loop.Loop;
import org.rddp.loop.Poller;
import org.rddp.rdmap.EnhancedConnectionData;
import org.rddp.sctp.DdpSctp;
import org.rddp.sctp.SessionControl;
import org.rddp.wire.PrivateData;

/**
 * Coverage-guided fuzzing of what an SCTP peer sends on a DDP association (RFC 5043 §5–§6, §10, RFC 6581 §7): the
 * real {@link DdpAssociation} (its per-stream session control and re-sequencing window) reads the fuzzer's messages
 * from a scripted socket, between local actions the input also picks (Initiate, answer, close, abort, a full send
 * buffer). Corpus under {@code SessionControlFuzzTestInputs}; {@code JAZZER_FUZZ=1} fuzzes (see
 * {@code fuzz/README.md}).
 *
 * <p>Checks: nothing escapes the loop; every chunk sent is an unordered DDP chunk on an existing stream, session
 * control that decodes; an Initiate, Accept or Reject always carries DDP-SSN 0 (a session starts over, §6.1); no
 * Initiate is left unanswered when the ULP answers at once (§6.2–§6.4); control held back by a full socket all goes
 * out once there is room, while the association lives; every input ends in a bounded number of duty cycles; after
 * the association is lost every stream is idle.
 */
class SessionControlFuzzTest {
    private static final int STREAMS = 4;
    private static final int MAX_MESSAGE = 1200;
    private static final int CYCLE_BOUND = 10_000;
    private static final EnhancedConnectionData ORDS = EnhancedConnectionData.of(false, Set.of(), 4, 4);

    /**
     * Input: a policy octet (bit 0: the ULP rejects rather than accepts; bit 1: the ULP defers its answer to a later
     * action), then records: a stream octet (modulo 6: some streams do not exist), a kind octet (bits 0–1: 0 a DDP
     * segment, 1 session control, 2 another PPID, 3 a local action; bit 2 clear: the U bit; bit 3 clear: the message
     * is complete; bit 4: the socket's send buffer is full until the next record), a length octet, and that many
     * octets of the message (DDP-SSN first).
     */
    @FuzzTest(maxDuration = "10s")
    void peerMessages(byte[] input) {
        if (input.length < 1) {
            return;
        }
        boolean reject = (input[0] & 1) != 0;
        boolean defer = (input[0] & 2) != 0;
        ScriptedSctpSocket socket = new ScriptedSctpSocket(STREAMS, MAX_MESSAGE);
        Loop loop = Loop.manual("fuzz", Poller.parking());
        try {
            DdpAssociation association = new DdpAssociation(socket, loop, down -> { }, ChunkTap.NONE,
                    new AssociationBudget(SctpLimits.HELD_PER_ASSOCIATION, AssociationBudget.Shared.NONE),
                    Counters.create());
            List<DdpStreamSession> pending = new ArrayList<>();
            association.start((session, initiate) -> {
                if (defer) {
                    pending.add(session);
                } else {
                    session.answer(answer(initiate, reject));
                }
            });
            socket.arrive(SctpSocket.ReceivedMessage.ADAPTATION, DdpSctp.ADAPTATION_INDICATION);
            drive(loop);
            int at = 1;
            while (at + 3 <= input.length) {
                int stream = (input[at] & 0xFF) % 6;
                int kind = input[at + 1] & 0xFF;
                int length = Math.min(input[at + 2] & 0xFF, input.length - at - 3);
                byte[] octets = java.util.Arrays.copyOfRange(input, at + 3, at + 3 + length);
                at += 3 + length;
                socket.full = (kind & 0x10) != 0;
                if ((kind & 3) == 3) {
                    act(association, stream % STREAMS, octets, pending, reject);
                } else {
                    int ppid = switch (kind & 3) {
                        case 0 -> DdpSctp.PPID_DDP_SEGMENT;
                        case 1 -> DdpSctp.PPID_SESSION_CONTROL;
                        default -> octets.length > 0 ? octets[0] : 0;
                    };
                    socket.arrive(stream, ppid, (kind & 4) == 0, (kind & 8) == 0, octets);
                }
                drive(loop);
                if (!defer) {
                    for (int s = 0; s < STREAMS; s++) {
                        assertThat(association.session(s).state()).as("stream %d", s)
                                .isNotEqualTo(SessionStateMachine.State.PENDING_ULP);
                    }
                }
            }
            socket.full = false;
            socket.writableNow();
            drive(loop);
            for (int s = 0; s < STREAMS && !association.down(); s++) {
                assertThat(association.session(s).pendingControl()).as("control held back on stream %d", s).isZero();
            }
            association.lose("the fuzz input ended");
            drive(loop);
            for (int s = 0; s < STREAMS; s++) {
                assertThat(association.session(s).state()).isEqualTo(SessionStateMachine.State.IDLE);
            }
        } finally {
            Throwable escaped = loop.failure();
            loop.close();
            if (escaped != null) {
                throw new AssertionError("an exception escaped the association", escaped);
            }
        }
    }

    /** A local action on {@code stream}: what the ULP or the engine may do at any time. */
    private static void act(DdpAssociation association, int stream, byte[] octets,
            List<DdpStreamSession> pending, boolean reject) {
        DdpStreamSession session = association.session(stream);
        int action = octets.length > 0 ? octets[0] & 7 : 0;
        switch (action) {
            case 0 -> {
                if (session.state() == SessionStateMachine.State.IDLE) {
                    session.initiate(new SessionControl.Initiate(PrivateData.EMPTY), response -> { });
                }
            }
            case 1 -> {
                if (session.state() == SessionStateMachine.State.IDLE) {
                    session.initiate(new SessionControl.EnhancedInitiate(ORDS, PrivateData.EMPTY), response -> { });
                }
            }
            case 2 -> {
                if (pending.remove(session) && session.state() == SessionStateMachine.State.PENDING_ULP) {
                    session.answer(new SessionControl.Terminate());
                }
            }
            case 3 -> {
                for (DdpStreamSession waiting : pending) {
                    if (waiting.state() == SessionStateMachine.State.PENDING_ULP) {
                        waiting.answer(answer(new SessionControl.Initiate(PrivateData.EMPTY), reject));
                    }
                }
                pending.clear();
            }
            case 4 -> session.close();
            case 5 -> session.abort();
            default -> { }
        }
    }

    private static SessionControl answer(SessionControl initiate, boolean reject) {
        if (initiate instanceof SessionControl.EnhancedInitiate) {
            return reject ? new SessionControl.EnhancedReject(PrivateData.EMPTY)
                    : new SessionControl.EnhancedAccept(ORDS, PrivateData.EMPTY);
        }
        return reject ? new SessionControl.Reject(PrivateData.EMPTY) : new SessionControl.Accept(PrivateData.EMPTY);
    }

    /** Runs the loop until it has nothing to do; a loop that never settles is a finding. */
    private static void drive(Loop loop) {
        for (int cycles = 0; loop.invoke() > 0; cycles++) {
            assertThat(cycles).as("duty cycles for one record").isLessThan(CYCLE_BOUND);
        }
    }
}
