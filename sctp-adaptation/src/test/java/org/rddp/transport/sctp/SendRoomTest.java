package org.rddp.transport.sctp;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.rddp.ddp.DdpSegment;
import org.rddp.error.TerminateCause;
import org.rddp.llp.Counters;
import org.rddp.llp.LlpSink;
import org.rddp.llp.LlpStream;
import org.rddp.llp.PlacementTarget;
import org.rddp.loop.Loop;
import org.rddp.loop.Poller;
import org.rddp.sctp.DdpSctp;
import org.rddp.sctp.SessionControl;
import org.rddp.wire.PrivateData;

/**
 * The queue pairs of one association share its socket's send buffer: when room comes in small bursts (a lossy path),
 * it goes to the sessions that wait for it in turn, and a session whose application posts again at once does not
 * take it before them.
 */
class SendRoomTest {
    private static final int STREAMS = 8;
    private static final MemorySegment HEADER = MemorySegment.ofArray(new byte[] {0x41, 0, 0, 0, 0, 0, 0, 0});
    private static final MemorySegment PAYLOAD = MemorySegment.ofArray(new byte[100]);

    private final ScriptedSctpSocket socket = new ScriptedSctpSocket(STREAMS, 2_000);
    private final List<String> errors = new ArrayList<>();
    private Loop loop;
    private DdpAssociation association;

    @BeforeEach
    void setUp() {
        loop = Loop.manual("send-room", Poller.parking(), (where, error) -> errors.add(error.toString()));
        association = new DdpAssociation(socket, loop, gone -> { }, ChunkTap.NONE, new AssociationBudget(
                SctpLimits.HELD_PER_ASSOCIATION, AssociationBudget.Shared.NONE), Counters.create());
        association.start((session, initiate) -> session.answer(new SessionControl.Accept(PrivateData.EMPTY)));
        socket.arrive(SctpSocket.ReceivedMessage.ADAPTATION, DdpSctp.ADAPTATION_INDICATION);
        drive();
    }

    @AfterEach
    void tearDown() {
        association.lose("the test ended");
        drive();
        loop.close();
        assertThat(errors).as("nothing reached the loop's error handler").isEmpty();
    }

    private void drive() {
        for (int cycles = 0; loop.invoke() > 0; cycles++) {
            assertThat(cycles).isLessThan(100_000);
        }
    }

    /** An engine with endless segments to send: it sends until the stream pushes back, then flushes. */
    private final class Engine implements LlpSink {
        final DdpStreamSession stream;

        Engine(int streamId) {
            socket.arrive(streamId, 0, new SessionControl.Initiate(PrivateData.EMPTY)); // accepted at once
            drive();
            stream = association.session(streamId);
            loop.execute(() -> stream.start(this));
            drive();
        }

        /** What it does when woken, by the stream or by its application posting more. */
        void drain() {
            while (stream.send(HEADER, 0, (int) HEADER.byteSize(), PAYLOAD, 0, 100) == LlpStream.SENT) {
                continue;
            }
            stream.flush();
        }

        @Override
        public boolean placeTagged(DdpSegment header, int payloadLength, PlacementTarget target) {
            return false;
        }

        @Override
        public void onSegment(MemorySegment buffer, long offset, int length, boolean payloadPlaced) {
        }

        @Override
        public void onWritable() {
            drain();
        }

        @Override
        public void onLlpError(TerminateCause cause, String detail) {
            errors.add(detail);
        }

        @Override
        public void onClosed(boolean graceful, String reason) {
        }
    }

    @Test
    void roomThatComesInBurstsGoesToTheWaitingSessionsInTurn() {
        Engine greedy = new Engine(1);
        Engine patient = new Engine(2);
        Engine third = new Engine(3);
        socket.takeSent();
        socket.room = 0;
        loop.execute(() -> {
            greedy.drain();
            patient.drain();
            third.drain();
        });
        drive();
        int[] sent = new int[STREAMS];
        for (int burst = 0; burst < 60; burst++) {
            socket.room = 3;
            loop.execute(greedy::drain); // its application posted again: it runs before the socket's room is seen
            socket.writableNow();
            drive();
            for (ScriptedSctpSocket.Sent chunk : socket.takeSent()) {
                sent[chunk.streamId()]++;
            }
        }
        assertThat(sent[1] + sent[2] + sent[3]).isEqualTo(180);
        assertThat(sent[2]).as("the patient session's share").isBetween(50, 70);
        assertThat(sent[3]).as("the third session's share").isBetween(50, 70);
    }
}
