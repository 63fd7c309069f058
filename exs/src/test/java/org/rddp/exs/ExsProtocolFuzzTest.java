package org.rddp.exs;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.rddp.loop.Loop;
import org.rddp.loop.Progress;
import org.rddp.verbs.WcOpcode;
import org.rddp.work.WcStatus;
import org.rddp.verbs.WorkCompletion;
import org.rddp.verbs.testing.InMemoryTransport;

/**
 * Coverage-guided fuzzing of the EXS protocol as a peer drives it: a {@link RawPeer} connected to an accepted EXS
 * socket sends the fuzzer's messages (raw octets, or advertisements, acknowledgements and rearms with fuzzed fields)
 * and reads the windows the socket advertised, while the socket has receives and sends outstanding. Everything runs
 * on the fuzzer's thread, which drives the in-memory LLP's manual loops. Corpus under
 * {@code ExsProtocolFuzzTestInputs}; {@code JAZZER_FUZZ=1} fuzzes (see {@code fuzz/README.md}).
 *
 * <p>Checks: nothing escapes a loop or the socket; no octet of the socket's memory outside its receives' region
 * changes, and its send memory never changes; every operation ends with exactly one event (a persistent receive:
 * one per message, then one) once the socket is closed; every input ends in a bounded number of duty cycles.
 */
class ExsProtocolFuzzTest {
    private static final int MAX_RECORDS = 16;
    private static final int CYCLE_BOUND = 20_000;
    private static final int REGION = 512;
    private static final byte CANARY = (byte) 0xC3;
    private static final MemorySegment CANARIES = Arena.global().allocate(REGION).fill(CANARY);

    private static InMemoryTransport transport;

    /**
     * Input: a setup octet (bits 0–1: receives to post, 0 to 3; bit 2: the first is persistent, and alone; bit 3:
     * they wait for all; bit 4: the socket sends an immediate message; bit 5: and one to be read; bit 6: a persistent
     * one asking for notifications), then records of a kind octet and what that kind takes: (kind % 5) 0: a length
     * octet and that many raw octets; 1: an advertisement, 20 octets of flags, sequence, length, STag selector,
     * offset and placement; 2: an acknowledgement, 12 octets of flags, sequence, length, status and more; 3: a rearm, 4
     * octets of sequence; 4: a read of the last window advertised, 4 octets of offset and length.
     */
    @FuzzTest(maxDuration = "10s")
    void peerMessages(byte[] input) throws Exception {
        if (transport == null || !transport.initiator().loop().inLoop()) {
            transport = new InMemoryTransport(4096, 64, Progress.manual()); // this thread runs the loops
        }
        int setup = input.length > 0 ? input[0] & 0xFF : 0;
        Exs exs = Exs.init(transport.responder());
        ExsQueue queue = exs.createQueue();
        ExsSocket listening = exs.socket(queue);
        listening.setOption(ExsOption.CREDITS, 2);
        listening.setOption(ExsOption.SMALL_PACKET_MAX_SIZE, 64);
        var address = transport.nextAddress();
        listening.bind(address);
        listening.listen(1);
        listening.accept("accept");
        RawPeer peer = RawPeer.connect(transport.initiator(), address, RawPeer.hello(2, 128));
        Events events = new Events(queue);
        ExsEvent accepted = events.next(ExsEvent.Type.ACCEPT);
        assertThat(accepted.error()).isNull();
        ExsSocket socket = accepted.socket();

        // the socket's memory: canaries, the receives' region, canaries, the send blocks, canaries
        MemorySegment memory = Arena.ofAuto().allocate(5L * REGION).fill(CANARY);
        MemorySegment sendBlocks = memory.asSlice(3L * REGION, REGION);
        sendBlocks.copyFrom(ExsSuite.pattern(REGION, setup));
        MemorySegment sendCopy = Arena.ofAuto().allocate(REGION).copyFrom(sendBlocks);
        ExsMemory registered = exs.register(memory);
        Map<Object, Integer> outstanding = new HashMap<>();
        int receives = (setup & 4) != 0 ? Math.min(1, setup & 3) : setup & 3; // a persistent one takes all
        for (int i = 0; i < receives; i++) {
            Set<ExsFlag> flags = EnumSet.noneOf(ExsFlag.class);
            if (i == 0 && (setup & 4) != 0) {
                flags.add(ExsFlag.PERSISTENT);
            } else if ((setup & 8) != 0) {
                flags.add(ExsFlag.WAITALL);
            }
            socket.recv(registered, REGION + (long) i * (REGION / 4), REGION / 4, "recv" + i, flags);
            outstanding.put("recv" + i, 1);
        }
        if ((setup & 16) != 0) {
            socket.send(registered, 3L * REGION, 32, "immediate");
            outstanding.put("immediate", 1);
        }
        if ((setup & 32) != 0) {
            socket.send(registered, 3L * REGION + 64, 200, "read");
            outstanding.put("read", 1);
        }
        if ((setup & 64) != 0) {
            socket.send(registered, 3L * REGION + 256, 256, "persistent", EnumSet.of(ExsFlag.PERSISTENT,
                    ExsFlag.NOTIFY));
            outstanding.put("persistent", 1);
        }

        ExsMessage.Advertisement lastAdvertised = null;
        int at = 1;
        for (int record = 0; record < MAX_RECORDS && at < input.length; record++) {
            int kind = (input[at++] & 0xFF) % 5;
            MemorySegment rest = MemorySegment.ofArray(input).asSlice(at);
            switch (kind) {
                case 0 -> {
                    int length = Math.min(rest.byteSize() > 0 ? input[at] & 0xFF : 0, (int) rest.byteSize() - 1);
                    length = Math.max(0, length);
                    byte[] octets = new byte[length];
                    if (length > 0) {
                        MemorySegment.copy(rest, 1, MemorySegment.ofArray(octets), 0, length);
                    }
                    at += 1 + length;
                    peer.send(octets);
                }
                case 1 -> {
                    MemorySegment fields = take(rest, 20);
                    at += 20;
                    int selector = fields.get(NetworkOrder.INT, 8) & 3;
                    int stag = selector == 0 ? peer.block.rkey() : selector == 1 ? 0x1234_5600
                            : fields.get(NetworkOrder.INT, 8);
                    int flags = fields.get(NetworkOrder.SHORT, 0) & 0xFFFF;
                    int length = fields.get(NetworkOrder.SHORT, 6) & 0x1FFF;
                    byte[] advert = RawPeer.advertisement(0, fields.get(NetworkOrder.SHORT, 2), length, stag,
                            fields.get(NetworkOrder.SHORT, 12) & 0xFFFF,
                            fields.get(NetworkOrder.SHORT, 16) & 0xFFFF);
                    MemorySegment.ofArray(advert).set(NetworkOrder.SHORT, 2, (short) flags);
                    if ((flags & ExsMessage.IMMEDIATE) != 0) {
                        byte[] immediate = new byte[advert.length + Math.min(length, 256)];
                        System.arraycopy(advert, 0, immediate, 0, advert.length);
                        advert = immediate;
                    }
                    peer.send(advert);
                }
                case 2 -> {
                    MemorySegment fields = take(rest, 12);
                    at += 12;
                    byte[] ack = new byte[ExsMessage.ACKNOWLEDGEMENT_LENGTH];
                    new ExsMessage.Acknowledgement(fields.get(NetworkOrder.SHORT, 0) & 1,
                            fields.get(NetworkOrder.SHORT, 2), fields.get(NetworkOrder.INT, 4) & 0x7FFF_FFFF,
                            fields.get(NetworkOrder.SHORT, 8) & 3, 0).encode(MemorySegment.ofArray(ack), 0);
                    // octets 10-11: how many earlier advertisements it answers too (sent as is, even where an
                    // acknowledgement may not have any)
                    MemorySegment.ofArray(ack).set(NetworkOrder.SHORT, 14, (short) (fields.get(NetworkOrder.SHORT,
                            10) & 7));
                    peer.send(ack);
                }
                case 3 -> {
                    MemorySegment fields = take(rest, 4);
                    at += 4;
                    byte[] rearm = new byte[ExsMessage.ACKNOWLEDGEMENT_LENGTH];
                    new ExsMessage.Rearm(fields.get(NetworkOrder.INT, 0)).encode(MemorySegment.ofArray(rearm), 0);
                    peer.send(rearm);
                }
                default -> {
                    MemorySegment fields = take(rest, 4);
                    at += 4;
                    if (lastAdvertised != null && lastAdvertised.stag() != 0) {
                        peer.read(lastAdvertised.stag(), fields.get(NetworkOrder.SHORT, 0) & 0x3FF,
                                fields.get(NetworkOrder.SHORT, 2) & 0x3FF);
                    }
                }
            }
            ExsMessage.Advertisement seen = quiesce(peer, events);
            if (seen != null) {
                lastAdvertised = seen;
            }
        }

        if (socket.state() == ExsSocket.State.CONNECTED) {
            socket.close("close");
            outstanding.put("close", 1);
        }
        quiesce(peer, events);
        listening.close("stop listening");
        quiesce(peer, events);

        assertThat(transport.initiator().loop().failure()).as("an exception escaped a loop").isNull();
        assertThat(transport.responder().loop().failure()).as("an exception escaped a loop").isNull();
        assertThat(socket.state()).isEqualTo(ExsSocket.State.CLOSED);
        long changed = memory.asSlice(0, REGION).mismatch(CANARIES);
        if (changed < 0) {
            changed = memory.asSlice(2L * REGION, REGION).mismatch(CANARIES);
            changed = changed < 0 ? memory.asSlice(4L * REGION, REGION).mismatch(CANARIES) : changed;
        }
        assertThat(changed).as("an octet outside the receives' region changed").isEqualTo(-1);
        assertThat(sendBlocks.mismatch(sendCopy)).as("an octet of the send blocks changed").isEqualTo(-1);
        for (ExsEvent event : events.all) {
            if (event.socket() == socket && event.context() != null && event.type() != ExsEvent.Type.READ) {
                outstanding.merge(event.context(), -1, Integer::sum);
            }
        }
        for (Map.Entry<Object, Integer> entry : outstanding.entrySet()) {
            boolean persistentReceive = entry.getKey().equals("recv0") && (setup & 4) != 0;
            if (persistentReceive) {
                assertThat(entry.getValue()).as("events of the persistent receive").isLessThanOrEqualTo(0);
            } else {
                assertThat(entry.getValue()).as("events of %s besides the one it gets", entry.getKey()).isZero();
            }
        }
    }

    /** {@code length} octets from {@code from}, zeros past its end. */
    private static MemorySegment take(MemorySegment from, int length) {
        MemorySegment fields = Arena.ofAuto().allocate(length);
        MemorySegment.copy(from, 0, fields, 0, Math.min(length, from.byteSize()));
        return fields;
    }

    /**
     * Runs this thread's loops, the socket's queue and the peer until nothing moves (three cycles in a row);
     * returns the last advertisement the peer received, if any.
     */
    private static ExsMessage.Advertisement quiesce(RawPeer peer, Events events) throws Exception {
        ExsMessage.Advertisement seen = null;
        int cycles = 0;
        for (int idle = 0; idle < 3; cycles++) {
            if (cycles > CYCLE_BOUND) {
                throw new AssertionError("still busy after " + CYCLE_BOUND + " duty cycles");
            }
            int work = Loop.invokeOwned() + events.take();
            for (WorkCompletion completion = peer.poll(); completion != null; completion = peer.poll()) {
                work++;
                if (completion.opcode() == WcOpcode.RECV && completion.status() == WcStatus.SUCCESS) {
                    try {
                        if (ExsMessage.decode(peer.received(completion), 0, (int) completion.byteLength())
                                instanceof ExsMessage.Advertisement advert) {
                            seen = advert;
                        }
                    } catch (ExsProtocolException e) {
                        throw new AssertionError("the socket sent a message that does not decode", e);
                    }
                }
            }
            idle = work == 0 ? idle + 1 : 0;
        }
        return seen;
    }

    /** The socket side's events, all kept. */
    private static final class Events {
        final List<ExsEvent> all = new ArrayList<>();
        private final ExsQueue queue;
        private final ExsEvent[] into = new ExsEvent[16];

        Events(ExsQueue queue) {
            this.queue = queue;
        }

        int take() throws InterruptedException {
            int taken = queue.dequeue(into, 0, Duration.ZERO);
            for (int i = 0; i < taken; i++) {
                all.add(into[i]);
            }
            return taken;
        }

        ExsEvent next(ExsEvent.Type type) throws InterruptedException {
            for (int cycles = 0; cycles < CYCLE_BOUND; cycles++) {
                for (ExsEvent event : all) {
                    if (event.type() == type) {
                        all.remove(event);
                        return event;
                    }
                }
                Loop.invokeOwned();
                take();
            }
            throw new AssertionError("no " + type + " event");
        }
    }
}
