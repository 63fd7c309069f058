package org.rddp.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rddp.engine.EnginePair.fill;
import static org.rddp.engine.EnginePair.mismatch;
import static org.rddp.engine.EnginePair.send;
import static org.rddp.engine.StagResolver.LOCAL_WRITE;

import org.rddp.work.WorkOpcode;
import org.rddp.work.QpEvent;
import org.rddp.work.QpState;
import org.rddp.work.WcStatus;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.rddp.ddp.DdpSegment;
import org.rddp.engine.TestQueues.ReceiveDone;
import org.rddp.engine.TestQueues.SendDone;
import org.rddp.error.RdmapError;
import org.rddp.llp.LlpParameters;
import org.rddp.rdmap.RdmapControl;
import org.rddp.rdmap.RdmapOpcode;
import org.rddp.rdmap.RtrType;
import org.rddp.rdmap.TerminateHeader;
import org.rddp.wire.PrivateData;

/**
 * The peer-to-peer model's ready-to-receive message (RFC 6581 §5, §9.2) as the engine carries it: the initiator sends
 * the negotiated RTR first, the responder consumes it (no receive of the user's, no completion on either side) and
 * refuses any other first message with a Terminate; a responder that must hold its sends until it has received
 * (RFC 5044 §7.1.2) puts nothing on the wire before the RTR arrives.
 */
class PeerToPeerRtrTest {

    private static LlpParameters parameters(RtrType send, RtrType receive, boolean hold) {
        return new LlpParameters(1, 1, send, receive, hold, DdpSegment.DDP_VERSION, RdmapControl.RDMAP_VERSION,
                PrivateData.EMPTY, PrivateData.EMPTY);
    }

    private static EnginePair pair(RtrType sent, RtrType expected, boolean hold) {
        return EnginePair.of(parameters(sent, RtrType.NONE, false), parameters(RtrType.NONE, expected, hold),
                EnginePair.MULPDU, 32);
    }

    @ParameterizedTest
    @EnumSource(value = RtrType.class, names = {"SEND", "WRITE", "READ"})
    void theRtrIsConsumedAndTheUsersMessagesFollowBothWays(RtrType rtr) {
        try (EnginePair pair = pair(rtr, rtr, true)) {
            TestMemory.Tagged inboxB = pair.b.memory.region(8, LOCAL_WRITE);
            TestMemory.Tagged inboxA = pair.a.memory.region(8, LOCAL_WRITE);
            TestMemory.Tagged sourceA = pair.a.memory.region(8, 0);
            TestMemory.Tagged sourceB = pair.b.memory.region(8, 0);
            fill(sourceA.memory(), 11);
            fill(sourceB.memory(), 12);
            pair.b.postReceive(1, inboxB, 0, 8);
            pair.a.postReceive(2, inboxA, 0, 8);
            pair.start();
            assertThat(pair.a.end.segmentsSent()).as("the RTR, first").isEqualTo(1);
            assertThat(pair.b.queues.receivesDone).as("the RTR takes no receive of the user's").isEmpty();
            assertThat(pair.a.queues.sendsDone).as("nor completes as the user's work").isEmpty();

            pair.a.post(send(3, sourceA, 0, 8));
            pair.b.post(send(4, sourceB, 0, 8));
            pair.settle();
            assertThat(pair.b.queues.receivesDone).containsExactly(new ReceiveDone(1, WcStatus.SUCCESS, 8,
                    RdmapOpcode.SEND, 0));
            assertThat(pair.a.queues.receivesDone).containsExactly(new ReceiveDone(2, WcStatus.SUCCESS, 8,
                    RdmapOpcode.SEND, 0));
            assertThat(pair.a.queues.sendsDone).containsExactly(new SendDone(3, WorkOpcode.SEND, WcStatus.SUCCESS, 8));
            assertThat(pair.b.queues.sendsDone).containsExactly(new SendDone(4, WorkOpcode.SEND, WcStatus.SUCCESS, 8));
            assertThat(mismatch(sourceA.memory(), inboxB.memory())).isEqualTo(-1);
            assertThat(mismatch(sourceB.memory(), inboxA.memory())).isEqualTo(-1);
            assertThat(pair.a.queues.events).extracting(TestQueues.Event::event).containsExactly(QpEvent.ESTABLISHED);
            assertThat(pair.b.queues.events).extracting(TestQueues.Event::event).containsExactly(QpEvent.ESTABLISHED);
        }
    }

    @Test
    void aResponderThatHoldsSendsNothingBeforeTheRtrArrives() {
        try (EnginePair pair = pair(RtrType.SEND, RtrType.SEND, true)) {
            TestMemory.Tagged inboxA = pair.a.memory.region(8, LOCAL_WRITE);
            TestMemory.Tagged sourceB = pair.b.memory.region(8, 0);
            fill(sourceB.memory(), 13);
            pair.a.postReceive(1, inboxA, 0, 8);
            pair.b.end.stall(); // the initiator's RTR waits at the responder's end
            pair.start();
            pair.b.post(send(2, sourceB, 0, 8));
            pair.settle();
            assertThat(pair.b.end.segmentsSent()).as("held until something was received").isZero();
            assertThat(pair.b.queues.sendsDone).isEmpty();

            pair.b.end.resume();
            pair.settle();
            assertThat(pair.b.queues.sendsDone).containsExactly(new SendDone(2, WorkOpcode.SEND, WcStatus.SUCCESS, 8));
            assertThat(pair.a.queues.receivesDone).containsExactly(new ReceiveDone(1, WcStatus.SUCCESS, 8,
                    RdmapOpcode.SEND, 0));
            assertThat(mismatch(sourceB.memory(), inboxA.memory())).isEqualTo(-1);
        }
    }

    @Test
    void aFirstMessageOtherThanTheNegotiatedRtrIsAnUnexpectedOpcode() {
        try (EnginePair pair = pair(RtrType.WRITE, RtrType.SEND, false)) {
            TestMemory.Tagged inboxB = pair.b.memory.region(8, LOCAL_WRITE);
            pair.b.postReceive(1, inboxB, 0, 8);
            pair.start();

            TerminateHeader sent = pair.b.queues.only(QpEvent.TERMINATE_SENT).terminate();
            assertThat(sent.cause()).contains(RdmapError.REMOTE_OPERATION_UNEXPECTED_OPCODE);
            byte[] header = sent.terminatedDdpHeader().toByteArray();
            assertThat(header[0] & DdpSegment.TAGGED_FLAG).as("the Write RTR's header, copied").isNotZero();
            assertThat(header[1] & 0x0F).isEqualTo(RdmapOpcode.RDMA_WRITE.wire());
            assertThat(sent.ddpSegmentLength()).isZero();
            assertThat(pair.a.queues.only(QpEvent.TERMINATE_RECEIVED).terminate()).isEqualTo(sent);
            assertThat(pair.b.queues.receivesDone).extracting(ReceiveDone::status)
                    .containsExactly(WcStatus.WR_FLUSH_ERR);
            assertThat(Arrays.asList(pair.a.state(), pair.b.state())).containsOnly(QpState.ERROR);
        }
    }
}
