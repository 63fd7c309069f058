package org.rddp.transport.sctp;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rddp.loop.Loop;
import org.rddp.loop.Poller;
import org.rddp.sctp.DdpSctp;
import org.rddp.sctp.SessionControl;
import org.rddp.llp.Counter;
import org.rddp.llp.Counters;
import org.rddp.wire.PrivateData;

/**
 * What a peer can make an association hold (RFC 5043 §10, RFC 5042): chunks ahead of their turn are kept only for a
 * session this side takes part in, and only within the association's budget; a chunk on a stream with no session
 * gets a Terminate and is not kept; every Initiate is answered, on a stream that drains too; a stream is reused only
 * once nothing of its last session is outstanding (§6.6); an association whose step throws ends alone. Driven chunk
 * by chunk through a scripted socket on a manual loop.
 */
@Timeout(30)
class EarlyChunksTest {
    private static final int STREAMS = 8;
    private static final int MAX_MESSAGE = 2_000;
    private static final int SEGMENT = 1_000;

    private final ScriptedSctpSocket socket = new ScriptedSctpSocket(STREAMS, MAX_MESSAGE);
    private final List<SessionControl> initiates = new ArrayList<>();
    private final List<String> errors = new ArrayList<>();
    private Loop loop;
    private AssociationBudget budget;
    private DdpAssociation association;
    private final List<String> down = new ArrayList<>();

    @BeforeEach
    void setUp() {
        loop = Loop.manual("early-chunks", Poller.parking(), (where, error) -> errors.add(error.toString()));
        open(SctpLimits.HELD_PER_ASSOCIATION);
    }

    private void open(long held) {
        budget = new AssociationBudget(held, AssociationBudget.Shared.NONE);
        association = new DdpAssociation(socket, loop, gone -> down.add("down"), ChunkTap.NONE, budget,
                Counters.create());
        association.start((session, initiate) -> {
            initiates.add(initiate);
            session.answer(new SessionControl.Accept(PrivateData.EMPTY));
        });
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

    private static byte[] segment(int octets) {
        byte[] segment = new byte[octets];
        segment[0] = 0x41; // untagged, last, DDP version 1 (what it says does not matter until its turn)
        return segment;
    }

    /** The peer opens a session on {@code stream}, which this side's listener accepts at once. */
    private void sessionOpenedByThePeer(int stream) {
        socket.arrive(stream, 0, new SessionControl.Initiate(PrivateData.EMPTY));
        drive();
        assertThat(socket.takeSent()).extracting(ScriptedSctpSocket.Sent::control)
                .containsExactly(new SessionControl.Accept(PrivateData.EMPTY));
        assertThat(association.session(stream).state()).isEqualTo(SessionStateMachine.State.OPEN);
    }

    @Test
    void aChunkAheadOnAStreamWithNoSessionGetsATerminateAndIsNotKept() {
        long refused = Counters.process().get(Counter.EARLY_CHUNKS_REFUSED);
        for (int ssn = 1; ssn <= 100; ssn++) {
            socket.arriveSegment(3, ssn, segment(SEGMENT));
        }
        drive();
        List<ScriptedSctpSocket.Sent> sent = socket.takeSent();
        assertThat(sent).as("one Terminate for the stream, not one per chunk").hasSize(1);
        assertThat(sent.get(0).streamId()).isEqualTo(3);
        assertThat(sent.get(0).control()).isEqualTo(new SessionControl.Terminate());
        assertThat(budget.held()).as("nothing kept for a session that is not open").isZero();
        assertThat(Counters.process().get(Counter.EARLY_CHUNKS_REFUSED) - refused).isEqualTo(100);
        assertThat(association.lastIllegal).contains("ahead of 0").contains("RFC 5043 §10");
    }

    /** Finding 3: a stream draining after a stray chunk takes the peer's next session, and answers its Initiate. */
    @Test
    void anInitiateAtDdpSsnZeroOnAStreamThatDrainsIsAnswered() {
        socket.arriveSegment(3, 7, segment(10));
        socket.arriveSegment(3, 0, segment(10));
        drive();
        assertThat(socket.takeSent()).extracting(ScriptedSctpSocket.Sent::control)
                .containsExactly(new SessionControl.Terminate());
        assertThat(association.session(3).state()).isEqualTo(SessionStateMachine.State.DRAINING);

        socket.arrive(3, 0, new SessionControl.Initiate(PrivateData.of(new byte[] {1})));
        drive();
        assertThat(initiates).containsExactly(new SessionControl.Initiate(PrivateData.of(new byte[] {1})));
        List<ScriptedSctpSocket.Sent> sent = socket.takeSent();
        assertThat(sent).extracting(ScriptedSctpSocket.Sent::control)
                .containsExactly(new SessionControl.Accept(PrivateData.EMPTY));
        assertThat(sent.get(0).ddpSsn()).as("the new session's first chunk").isZero();
        assertThat(association.session(3).state()).isEqualTo(SessionStateMachine.State.OPEN);
    }

    @Test
    void earlyChunksOfAnOpenSessionAreHeldUntilTheirTurnWithinTheBudget() {
        sessionOpenedByThePeer(2);
        for (int ssn = 3; ssn <= 10; ssn++) {
            socket.arriveSegment(2, ssn, segment(SEGMENT));
        }
        drive();
        assertThat(socket.takeSent()).as("early chunks of an open session are no fault").isEmpty();
        assertThat(budget.held()).isBetween(8L * SEGMENT, 8L * SEGMENT + 1_000);
        assertThat(association.session(2).state()).isEqualTo(SessionStateMachine.State.OPEN);
    }

    /**
     * Finding 1: a peer that runs ahead of a DDP-SSN it never sends is stopped at the association's bound: the session
     * ends with a Terminate, and what was held goes back but for the DDP-SSNs the drain needs.
     */
    @Test
    void aSessionThatRunsPastTheAssociationsBudgetEndsWithATerminate() {
        association.lose("reopened with a smaller budget");
        drive();
        open(20L * SEGMENT);
        sessionOpenedByThePeer(1);
        long refused = Counters.process().get(Counter.EARLY_CHUNKS_REFUSED);
        for (int ssn = 2; ssn < 200; ssn++) {
            socket.arriveSegment(1, ssn, segment(SEGMENT));
        }
        drive();
        assertThat(socket.takeSent()).extracting(ScriptedSctpSocket.Sent::control)
                .containsExactly(new SessionControl.Terminate());
        assertThat(association.session(1).state()).isEqualTo(SessionStateMachine.State.DRAINING);
        assertThat(association.lastIllegal).contains("cannot be kept").contains("SctpLimits.withHeldPerAssociation");
        assertThat(Counters.process().get(Counter.EARLY_CHUNKS_REFUSED) - refused).as("the one past the bound")
                .isOne();
        assertThat(budget.held()).as("only DDP-SSNs are kept while the stream drains").isLessThan(20L * SEGMENT);
        // the chunk that fills the gap, then the peer's Terminate: the drain ends, the stream is free, nothing held
        socket.arriveSegment(1, 1, segment(10));
        socket.arrive(1, 200, new SessionControl.Terminate());
        drive();
        assertThat(association.session(1).state()).isEqualTo(SessionStateMachine.State.IDLE);
        assertThat(budget.held()).isZero();
    }

    @Test
    void theProcessGetsBackWhatALostAssociationHeld() {
        long before = AssociationBudget.heldInProcess();
        sessionOpenedByThePeer(4);
        for (int ssn = 5; ssn < 50; ssn++) {
            socket.arriveSegment(4, ssn, segment(SEGMENT));
        }
        drive();
        assertThat(AssociationBudget.heldInProcess() - before).isGreaterThan(40L * SEGMENT);
        association.lose("gone");
        drive();
        assertThat(budget.held()).isZero();
        assertThat(AssociationBudget.heldInProcess()).isEqualTo(before);
    }

    /**
     * §6.6: a stream whose session just ended is not reused while the peer's SCTP has not acknowledged all this side
     * sent (its Terminate among it); a stream never used is taken instead.
     */
    @Test
    void aStreamIsReusedOnlyOnceNothingOfItsLastSessionIsOutstanding() {
        DdpStreamSession first = association.idleSession();
        assertThat(first.streamId).isZero();
        first.initiate(new SessionControl.Initiate(PrivateData.EMPTY), answer -> { });
        socket.arrive(0, 0, new SessionControl.Accept(PrivateData.EMPTY));
        drive();
        socket.arrive(0, 1, new SessionControl.Terminate()); // the peer ends it; this side answers with its own
        drive();
        assertThat(first.state()).isEqualTo(SessionStateMachine.State.IDLE);
        socket.acknowledged = false;
        assertThat(association.idleSession().streamId).as("stream 0's Terminate may still be in flight").isOne();
        socket.acknowledged = true;
        assertThat(association.idleSession().streamId).as("all acknowledged: stream 0 is free again").isZero();
    }

    /**
     * A step that throws (here the heap running out under a receive) ends its association alone, as a local
     * catastrophic error; the loop counts it, reports it, and runs on.
     */
    @Test
    void anErrorUnderAnAssociationsStepEndsThatAssociationAndTheLoopGoesOn() {
        sessionOpenedByThePeer(0);
        socket.receiveFailure = new OutOfMemoryError("Java heap space (a test's)");
        socket.writableNow();
        drive();
        assertThat(association.down()).isTrue();
        assertThat(socket.aborted).as("the association is aborted").isTrue();
        assertThat(down).containsExactly("down");
        assertThat(loop.errors()).isOne();
        assertThat(errors).hasSize(1).first().asString().contains("OutOfMemoryError");
        errors.clear();
        int[] ran = new int[1];
        loop.execute(() -> ran[0]++);
        drive();
        assertThat(ran[0]).as("the loop runs on").isOne();
    }

    /**
     * Answers a peer does not take (its window closed, this side's socket full) wait in order, counted against the
     * same budget: a peer that keeps opening and breaking sessions meanwhile gets its association aborted, not an
     * ever-growing queue.
     */
    @Test
    void sessionControlAnswersAPeerDoesNotTakeAreBoundedToo() {
        association.lose("reopened with a smaller budget");
        drive();
        open(4_000);
        socket.full = true;
        for (int round = 0; round < 200 && !association.down(); round++) {
            socket.arrive(5, 0, new SessionControl.Initiate(PrivateData.EMPTY)); // answered with an Accept
            socket.arriveSegment(5, 7, segment(10)); // ahead of its turn with nothing to wait for: a Terminate
            drive();
        }
        assertThat(association.down()).as("aborted once its answers pass the budget").isTrue();
        assertThat(socket.aborted).isTrue();
        assertThat(budget.held()).as("what waited was given back").isZero();
    }

    /**
     * The peer's first segments may overtake its Accept (every chunk is unordered): they are held, and once the Accept
     * binds the session to a queue pair they wait for its engine to start, then reach it in order, rather than end
     * the session as "a DDP segment before its queue pair took it".
     */
    @Test
    void segmentsThatOvertookTheAcceptWaitForTheEngineToStart() {
        DdpStreamSession session = association.idleSession();
        session.initiate(new SessionControl.Initiate(PrivateData.EMPTY), answer -> session.bind(
                new org.rddp.llp.LlpParameters(1, 1, org.rddp.rdmap.RtrType.NONE, org.rddp.rdmap.RtrType.NONE, false,
                        org.rddp.ddp.DdpSegment.DDP_VERSION, org.rddp.rdmap.RdmapControl.RDMAP_VERSION,
                        PrivateData.EMPTY, PrivateData.EMPTY)));
        socket.takeSent();
        socket.arriveSegment(session.streamId, 2, segment(30));
        socket.arriveSegment(session.streamId, 1, segment(20));
        socket.arrive(session.streamId, 0, new SessionControl.Accept(PrivateData.EMPTY));
        drive();
        assertThat(session.state()).isEqualTo(SessionStateMachine.State.OPEN);
        List<Integer> delivered = new ArrayList<>();
        session.start(new org.rddp.llp.LlpSink() {
            @Override
            public boolean placeTagged(org.rddp.ddp.DdpSegment header, int payloadLength,
                    org.rddp.llp.PlacementTarget target) {
                return false;
            }

            @Override
            public void onSegment(java.lang.foreign.MemorySegment buffer, long offset, int length,
                    boolean payloadPlaced) {
                delivered.add(length);
            }

            @Override
            public void onWritable() {
                // nothing to send
            }

            @Override
            public void onLlpError(org.rddp.error.TerminateCause cause, String detail) {
                delivered.add(-1);
            }

            @Override
            public void onClosed(boolean graceful, String reason) {
                delivered.add(-2);
            }
        });
        drive();
        assertThat(delivered).as("both segments, in order, once the engine started").containsExactly(20, 30);
        assertThat(socket.takeSent()).as("no Terminate").isEmpty();
        assertThat(session.state()).isEqualTo(SessionStateMachine.State.OPEN);
    }
}
