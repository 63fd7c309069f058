package org.rddp.engine;

import org.rddp.work.WorkOpcode;
import org.rddp.work.QpEvent;
import org.rddp.work.QpState;
import org.rddp.work.WcStatus;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.rddp.rdmap.RdmapOpcode;
import org.rddp.rdmap.TerminateHeader;

/**
 * The queue pair around one engine, for tests: posted work in plain queues, and every completion, event and state
 * change the engine reports, recorded in the order it reported them. Owner thread (the test's, driving manual loops).
 */
final class TestQueues implements WorkQueues {
    /** A send-queue completion as the engine reported it. */
    record SendDone(long wrId, WorkOpcode opcode, WcStatus status, long byteLength) {
    }

    /** A receive completion as the engine reported it. */
    record ReceiveDone(long wrId, WcStatus status, long byteLength, RdmapOpcode opcode, int invalidatedStag) {
    }

    /** An asynchronous event. */
    record Event(QpEvent event, TerminateHeader terminate, String detail) {
    }

    private final TestMemory memory;
    final ArrayDeque<SendWork> sends = new ArrayDeque<>();
    final ArrayDeque<ReceiveWork> receives = new ArrayDeque<>();
    final List<SendDone> sendsDone = new ArrayList<>();
    final List<ReceiveDone> receivesDone = new ArrayList<>();
    final List<Event> events = new ArrayList<>();
    final List<QpState> states = new ArrayList<>();

    TestQueues(TestMemory memory) {
        this.memory = memory;
    }

    @Override
    public SendWork nextSend() {
        QpState now = states.isEmpty() ? QpState.IDLE : states.getLast();
        if (now != QpState.RTS && now != QpState.CLOSING) {
            // the queue pair's contract: only an engine that sends takes work, so that it is the one consumer
            throw new IllegalStateException("nextSend in " + now);
        }
        return sends.poll();
    }

    @Override
    public void flushSends() {
        for (SendWork work = sends.poll(); work != null; work = sends.poll()) {
            sendCompleted(work, WcStatus.WR_FLUSH_ERR, 0);
        }
    }

    @Override
    public ReceiveWork nextReceive() {
        return receives.poll();
    }

    @Override
    public void sendCompleted(SendWork work, WcStatus status, long byteLength) {
        sendsDone.add(new SendDone(work.wrId, work.opcode, status, byteLength));
    }

    @Override
    public void receiveCompleted(ReceiveWork work, WcStatus status, long byteLength, RdmapOpcode opcode,
            int invalidatedStag) {
        receivesDone.add(new ReceiveDone(work.wrId, status, byteLength, opcode, invalidatedStag));
    }

    @Override
    public void flushReceives() {
        for (ReceiveWork work = receives.poll(); work != null; work = receives.poll()) {
            receiveCompleted(work, WcStatus.WR_FLUSH_ERR, 0, null, 0);
        }
    }

    /** Local invalidate through the memory; a bind succeeds unless its context is the status it must fail with. */
    @Override
    public WcStatus executeLocal(SendWork work) {
        if (work.opcode == WorkOpcode.LOCAL_INVALIDATE) {
            return memory.invalidate(work.localStag, false) == StagResolver.OK ? WcStatus.SUCCESS
                    : WcStatus.LOC_PROT_ERR;
        }
        return work.context instanceof WcStatus failure ? failure : WcStatus.SUCCESS;
    }

    @Override
    public void stateChanged(QpState state) {
        states.add(state);
    }

    @Override
    public void event(QpEvent event, TerminateHeader terminate, String detail) {
        events.add(new Event(event, terminate, detail));
    }

    /** The events of {@code type}, in order. */
    List<Event> events(QpEvent type) {
        return events.stream().filter(e -> e.event() == type).toList();
    }

    /** The one event of {@code type}; fails unless there is exactly one. */
    Event only(QpEvent type) {
        List<Event> found = events(type);
        if (found.size() != 1) {
            throw new AssertionError("expected one " + type + ", got " + events);
        }
        return found.getFirst();
    }
}
