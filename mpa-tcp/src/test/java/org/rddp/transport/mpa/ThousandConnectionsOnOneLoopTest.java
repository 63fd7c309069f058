package org.rddp.transport.mpa;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rddp.work.WcStatus;
import org.rddp.work.WorkOpcode;
import org.rddp.verbs.AcceptOptions;
import org.rddp.verbs.Access;
import org.rddp.verbs.CompletionQueue;
import org.rddp.verbs.ConnectOptions;
import org.rddp.verbs.Connection;
import org.rddp.verbs.Listener;
import org.rddp.verbs.MemoryRegion;
import org.rddp.verbs.PostStatus;
import org.rddp.verbs.ProtectionDomain;
import org.rddp.verbs.QpAttributes;
import org.rddp.verbs.QueuePair;
import org.rddp.verbs.RdmaDevice;
import org.rddp.verbs.ReceiveWorkRequest;
import org.rddp.verbs.SendWorkRequest;
import org.rddp.verbs.WcOpcode;
import org.rddp.verbs.WorkCompletion;
import org.rddp.wire.PrivateData;

/**
 * One loop carries a thousand live connections: each side's manager has one loop, whose single thread reads and
 * writes the sockets of every stream on it (no thread per connection), and every connection moves checksummed data
 * both ways at once: an RDMA Write, and a Send answered by a Send.
 */
class ThousandConnectionsOnOneLoopTest {
    private static final int CONNECTIONS = 1000;
    private static final int SIZE = 4096;

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void oneLoopThreadCarriesAThousandConnectionsEachMovingData() throws Exception {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        RdmaDevice initiatorDevice = new RdmaDevice("initiators");
        RdmaDevice responderDevice = new RdmaDevice("responders"); // queue pair numbers 1..1000: a slot each
        ProtectionDomain initiatorPd = initiatorDevice.allocateProtectionDomain();
        ProtectionDomain pd = responderDevice.allocateProtectionDomain();
        CompletionQueue initiatorCq = initiatorDevice.createCompletionQueue(4 * CONNECTIONS);
        CompletionQueue responderCq = responderDevice.createCompletionQueue(4 * CONNECTIONS);
        MemoryRegion sources = region(initiatorPd, 2L * CONNECTIONS * SIZE);
        MemoryRegion sinks = region(pd, 2L * CONNECTIONS * SIZE);
        for (long i = 0; i < sources.memory().byteSize(); i += 8) {
            sources.memory().set(ValueLayout.JAVA_LONG, i, i * 0x9E3779B97F4A7C15L);
        }
        List<QueuePair> initiators = new ArrayList<>();
        List<QueuePair> responders = new ArrayList<>();
        ConcurrentHashMap<Integer, QueuePair> byNumber = new ConcurrentHashMap<>();
        List<CompletableFuture<Connection>> accepted = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (MpaConnectionManager initiator = new MpaConnectionManager(MpaOptions.defaults(), loopback);
                MpaConnectionManager responder = new MpaConnectionManager(MpaOptions.defaults(), loopback);
                Listener listener = responder.listen(new InetSocketAddress(loopback, 0), request -> {
                    QueuePair qp = pd.createQueuePair(QpAttributes.of(responderCq, 4, 1));
                    byNumber.put(qp.number(), qp);
                    accepted.add(request.accept(qp, new AcceptOptions(PrivateData.EMPTY, 1, 1)));
                })) {
            // all at once: a connection in startup is a socket on the loop too, not a thread
            List<CompletableFuture<Connection>> connecting = new ArrayList<>();
            for (int i = 0; i < CONNECTIONS; i++) {
                QueuePair qp = initiatorPd.createQueuePair(QpAttributes.of(initiatorCq, 4, 1));
                initiators.add(qp);
                connecting.add(initiator.connect(qp, listener.address(), ConnectOptions.of(1, 1)));
            }
            for (CompletableFuture<Connection> each : connecting) {
                each.get(30, TimeUnit.SECONDS);
            }
            assertThat(accepted).hasSize(CONNECTIONS);
            for (CompletableFuture<Connection> each : accepted) {
                each.get(30, TimeUnit.SECONDS);
            }
            assertThat(MpaTransport.registered(initiator)).as("streams on the initiator's loop")
                    .isEqualTo(CONNECTIONS);
            assertThat(MpaTransport.registered(responder)).as("streams and the listener on the responder's loop")
                    .isEqualTo(CONNECTIONS + 1);
            assertThat(Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith("mpa-loop"))
                    .count()).as("loop threads: one per manager").isEqualTo(2);
            assertThat(Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith("mpa-"))
                    .filter(t -> !t.getName().startsWith("mpa-loop")).toList())
                    .as("no thread per connection, for listening or for startup").isEmpty();

            // each responder queue pair: a receive for the Send; each initiator: a receive for the answer
            responders.addAll(byNumber.values());
            assertThat(responders).hasSize(CONNECTIONS);
            ReceiveWorkRequest receive = new ReceiveWorkRequest(1);
            for (QueuePair qp : responders) {
                assertThat(qp.postReceive(receive.wrId(qp.number()).sge(0, sinks, slot(qp.number() % CONNECTIONS, 1),
                        SIZE))).isEqualTo(PostStatus.OK);
            }
            for (int i = 0; i < CONNECTIONS; i++) {
                assertThat(initiators.get(i).postReceive(receive.wrId(i).sge(0, sources, slot(i, 1), SIZE)))
                        .isEqualTo(PostStatus.OK);
            }
            SendWorkRequest write = new SendWorkRequest(1).opcode(WorkOpcode.RDMA_WRITE);
            SendWorkRequest send = new SendWorkRequest(1).opcode(WorkOpcode.SEND);
            for (int i = 0; i < CONNECTIONS; i++) {
                QueuePair qp = initiators.get(i);
                assertThat(qp.postSend(write.wrId(i).sge(0, sources, slot(i, 0), SIZE)
                        .remote(sinks.rkey(), sinks.iova() + slot(i, 0)))).isEqualTo(PostStatus.OK);
                assertThat(qp.postSend(send.wrId(CONNECTIONS + i).sge(0, sources, slot(i, 0), SIZE)))
                        .isEqualTo(PostStatus.OK);
            }
            // every responder echoes the Send it got, from where it landed, back into its initiator's receive
            WorkCompletion completion = new WorkCompletion();
            int echoesSent = 0;
            for (int echoed = 0; echoed < CONNECTIONS || echoesSent < CONNECTIONS;) {
                next(responderCq, completion);
                assertThat(completion.status()).as("%s", completion).isEqualTo(WcStatus.SUCCESS);
                if (completion.opcode() == WcOpcode.SEND) {
                    echoesSent++;
                    continue;
                }
                assertThat(completion.opcode()).isEqualTo(WcOpcode.RECV);
                echoed++;
                QueuePair qp = byNumber.get((int) completion.wrId());
                long landed = slot(qp.number() % CONNECTIONS, 1);
                assertThat(qp.postSend(send.wrId(qp.number()).sge(0, sinks, landed, SIZE))).isEqualTo(PostStatus.OK);
            }
            int answers = 0;
            int sent = 0;
            while (answers < CONNECTIONS || sent < 2 * CONNECTIONS) {
                next(initiatorCq, completion);
                assertThat(completion.status()).as("%s", completion).isEqualTo(WcStatus.SUCCESS);
                if (completion.opcode() == WcOpcode.RECV) {
                    answers++;
                } else {
                    sent++;
                }
            }
            for (int i = 0; i < CONNECTIONS; i++) {
                assertThat(crc(sinks, slot(i, 0))).as("the Write of connection %d", i).isEqualTo(crc(sources,
                        slot(i, 0)));
                assertThat(crc(sources, slot(i, 1))).as("the echo of connection %d", i).isEqualTo(crc(sources,
                        slot(i, 0)));
            }
        }
    }

    /** Where connection {@code i}'s block {@code which} (0: written and sent, 1: received) lies. */
    private static long slot(int i, int which) {
        return ((long) i * 2 + which) * SIZE;
    }

    private static MemoryRegion region(ProtectionDomain pd, long size) {
        return pd.register(Arena.ofAuto().allocate(size, 8), EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
    }

    private static long crc(MemoryRegion region, long offset) {
        CRC32C crc = new CRC32C();
        crc.update(region.memory().asSlice(offset, SIZE).asByteBuffer());
        return crc.getValue();
    }

    private static void next(CompletionQueue cq, WorkCompletion into) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!cq.poll(into)) {
            cq.requestNotification(false);
            if (cq.poll(into)) {
                return;
            }
            assertThat(System.nanoTime()).as("a completion within 60 s").isLessThan(deadline);
            cq.awaitNotification(Duration.ofSeconds(1));
        }
    }
}
