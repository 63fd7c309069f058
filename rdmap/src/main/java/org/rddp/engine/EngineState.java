package org.rddp.engine;

import org.rddp.work.QpState;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import org.rddp.ddp.DdpSegment;
import org.rddp.llp.LlpParameters;
import org.rddp.llp.LlpStream;
import org.rddp.llp.PlacementTarget;
import org.rddp.rdmap.RtrType;
import org.rddp.loop.Loop;
import org.rddp.rdmap.TerminateHeader;

/**
 * What the three parts of an engine ({@link Transmitter}, {@link Receiver}, {@link Termination}) share: the stream,
 * the queue pair's work and memory, the QP state, the DDP/RDMAP sequence numbers of both directions, the IRRQ and the
 * outstanding Reads, the Terminate, and scratch flyweights. Touched only on the engine's loop, but for {@link #state},
 * which any thread may read.
 */
final class EngineState {
    static final int HEADER_SCRATCH = 128;
    static final int UNTAGGED = DdpSegment.UNTAGGED_HEADER_LENGTH;
    static final int TAGGED = DdpSegment.TAGGED_HEADER_LENGTH;
    static final long MAX_MESSAGE = 0xFFFF_FFFFL;

    final LlpStream llp;
    final Loop loop;
    final StagResolver memory;
    final WorkQueues queues;
    final LlpParameters parameters;
    final MemorySegment header = MemorySegment.ofArray(new byte[HEADER_SCRATCH]);
    final MemorySegment gatherBuffer = MemorySegment.ofArray(new byte[0x10000]);
    final DdpSegment tx = new DdpSegment();
    final DdpSegment rx = new DdpSegment();
    final PlacementTarget target = new PlacementTarget();
    final PlacementTarget piece = new PlacementTarget();
    final SendWork rtrWork = new SendWork(1);

    volatile QpState state = QpState.IDLE;

    // Send side, in SQ order.
    final ArrayDeque<SendWork> inOrder = new ArrayDeque<>();
    final ArrayDeque<SendWork> readsOutstanding = new ArrayDeque<>();
    SendWork current;
    int sendMsn = 1;
    int readRequestMsn = 1;
    boolean backPressured;
    boolean holding;
    boolean closeRequested;
    boolean llpClosing;

    // Responder side of RDMA Read: the IRRQ, a ring.
    final InboundRead[] irrq;
    int irrqHead;
    int irrqCount;

    // Receive side.
    int expectedSendMsn = 1;
    int expectedReadMsn = 1;
    ReceiveWork receiving;
    long received;
    long responseReceived;
    boolean firstSegmentSeen;

    // Termination.
    TerminateHeader terminate;
    boolean terminateSent;

    /** One accepted RDMA Read Request waiting for (or in) its response. */
    static final class InboundRead {
        int msn;
        int sinkStag;
        long sinkTo;
        long size;
        int srcStag;
        long srcTo;
        long sent;
    }

    EngineState(LlpStream llp, Loop loop, StagResolver memory, WorkQueues queues) {
        this.llp = llp;
        this.loop = loop;
        this.memory = memory;
        this.queues = queues;
        this.parameters = llp.parameters();
        int capacity = Math.max(parameters.ird(), parameters.rtrToReceive() == RtrType.READ ? 1 : 0);
        irrq = new InboundRead[capacity];
        for (int i = 0; i < capacity; i++) {
            irrq[i] = new InboundRead();
        }
    }
}
