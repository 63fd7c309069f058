package org.rddp.transport.sctp;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.rddp.llp.Counter;
import org.rddp.llp.Counters;
import org.rddp.work.WcStatus;
import org.rddp.work.WorkOpcode;
import org.rddp.transport.sctp.usrsctp.UsrsctpStack;
import org.rddp.verbs.Access;
import org.rddp.verbs.CompletionQueue;
import org.rddp.verbs.ConnectOptions;
import org.rddp.verbs.Connection;
import org.rddp.verbs.MemoryRegion;
import org.rddp.verbs.ProtectionDomain;
import org.rddp.verbs.QpAttributes;
import org.rddp.verbs.QueuePair;
import org.rddp.verbs.RdmaDevice;
import org.rddp.verbs.ReceiveWorkRequest;
import org.rddp.verbs.SendWorkRequest;
import org.rddp.verbs.WcOpcode;
import org.rddp.verbs.WorkCompletion;

/**
 * DDP over usrsctp between two processes, each with its own usrsctp stack and UDP port (RFC 6951), and the
 * usrsctp stack's own edges: a UDP port that is taken, and shutting the stack down.
 */
class TwoProcessTest {

    private static Process responder(int sctpPort, String... properties) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("--enable-native-access=ALL-UNNAMED");
        command.add("--sun-misc-unsafe-memory-access=allow");
        command.addAll(List.of(properties));
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(EchoResponder.class.getName());
        command.add(Integer.toString(sctpPort));
        return new ProcessBuilder(command).redirectErrorStream(true).start();
    }

    @Test
    void messagesGoThereAndBackBetweenTwoProcesses() throws Exception {
        int sctpPort = TestPorts.next();
        Process child = responder(sctpPort);
        try (BufferedReader output = new BufferedReader(new InputStreamReader(child.getInputStream(),
                StandardCharsets.UTF_8))) {
            String[] ready = output.readLine().split(" ");
            assertThat(ready[0]).as("the responder first line").isEqualTo("READY");
            int remoteUdpPort = Integer.parseInt(ready[1]);
            assertThat(remoteUdpPort).isNotEqualTo(UsrsctpStack.udp().maxMessage() > 0 ? UsrsctpStack.udpPort() : 0);

            RdmaDevice device = new RdmaDevice("two-process");
            ProtectionDomain pd = device.allocateProtectionDomain();
            CompletionQueue cq = device.createCompletionQueue(512);
            QueuePair qp = pd.createQueuePair(QpAttributes.of(cq, 128, 1));
            int count = 100;
            int slot = 65536;
            MemoryRegion back = pd.register(Arena.ofAuto().allocate((long) count * slot),
                    EnumSet.of(Access.LOCAL_WRITE));
            MemoryRegion out = pd.register(Arena.ofAuto().allocate((long) count * slot), EnumSet.noneOf(Access.class));
            ReceiveWorkRequest receive = new ReceiveWorkRequest(1);
            for (int i = 0; i < count; i++) {
                qp.postReceive(receive.wrId(i).sge(0, back, (long) i * slot, slot));
            }
            try (SctpConnectionManager manager = new SctpConnectionManager(UsrsctpStack.udp(remoteUdpPort),
                    InetAddress.getLoopbackAddress())) {
                Connection connection = manager.connect(qp, new InetSocketAddress(InetAddress.getLoopbackAddress(),
                        sctpPort), ConnectOptions.of(1, 1)).get(20, TimeUnit.SECONDS);
                Random random = new Random(7);
                long[] sent = new long[count];
                SendWorkRequest send = new SendWorkRequest(1).opcode(WorkOpcode.SEND);
                for (int i = 0; i < count; i++) {
                    int size = 1 + random.nextInt(slot - 1);
                    byte[] data = new byte[size];
                    random.nextBytes(data);
                    MemorySegment.copy(MemorySegment.ofArray(data), 0, out.memory(), (long) i * slot, size);
                    CRC32C crc = new CRC32C();
                    crc.update(data);
                    sent[i] = crc.getValue();
                    assertThat(qp.postSend(send.wrId(1000 + i).sge(0, out, (long) i * slot, size))).isZero();
                }
                WorkCompletion completion = new WorkCompletion();
                int echoed = 0;
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (echoed < count) {
                    assertThat(System.nanoTime()).as("echoes within 60 s, %d so far, %s", echoed, qp)
                            .isLessThan(deadline);
                    if (!cq.poll(completion)) {
                        Thread.onSpinWait();
                        continue;
                    }
                    assertThat(completion.status()).as("%s", completion).isEqualTo(WcStatus.SUCCESS);
                    if (completion.opcode() == WcOpcode.RECV) {
                        CRC32C crc = new CRC32C();
                        crc.update(back.memory().asSlice(completion.wrId() * slot, completion.byteLength())
                                .asByteBuffer());
                        assertThat(crc.getValue()).as("echo %d", completion.wrId())
                                .isEqualTo(sent[(int) completion.wrId()]);
                        echoed++;
                    }
                }
                connection.disconnect();
            }
            assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(output.readLine()).as("the responder's usrsctp stack shut down").isEqualTo("FINISHED");
        } finally {
            child.destroyForcibly();
        }
    }

    @Test
    void aTakenUdpPortIsAClearError() throws Exception {
        try (DatagramSocket taken = new DatagramSocket(new InetSocketAddress(0))) {
            Process child = responder(1, "-D" + UsrsctpStack.UDP_PORT_PROPERTY + "=" + taken.getLocalPort());
            assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
            String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(child.exitValue()).isEqualTo(2);
            assertThat(output).contains("UDP port " + taken.getLocalPort() + " is taken");
        }
    }

    /**
     * Issue 16 item 4: a peer killed with SIGKILL sends no ABORT; with data outstanding the association is reported
     * lost within {@link ProtocolParameters#deadPeerBound} (was 4 to 12 minutes with RFC 4960's suggested values),
     * and every outstanding work request completes with a flush error.
     */
    @Test
    void aKilledPeerIsReportedLostInSecondsAndItsWorkIsFlushed() throws Exception {
        int sctpPort = TestPorts.next();
        Process child = responder(sctpPort);
        try (BufferedReader output = new BufferedReader(new InputStreamReader(child.getInputStream(),
                StandardCharsets.UTF_8))) {
            String[] ready = output.readLine().split(" ");
            assertThat(ready[0]).as("the responder first line").isEqualTo("READY");
            RdmaDevice device = new RdmaDevice("killed-peer");
            ProtectionDomain pd = device.allocateProtectionDomain();
            CompletionQueue cq = device.createCompletionQueue(64);
            java.util.concurrent.CompletableFuture<String> lost = new java.util.concurrent.CompletableFuture<>();
            QueuePair qp = pd.createQueuePair(new QpAttributes(cq, cq, null, 16, 16, 1, true,
                    (pair, event, terminate, detail) -> {
                        if (event == org.rddp.work.QpEvent.CONNECTION_LOST) {
                            lost.complete(detail);
                        }
                    }));
            int size = 4096;
            MemoryRegion back = pd.register(Arena.ofAuto().allocate(4L * size), EnumSet.of(Access.LOCAL_WRITE));
            MemoryRegion out = pd.register(Arena.ofAuto().allocate(size), EnumSet.noneOf(Access.class));
            for (int i = 0; i < 4; i++) {
                qp.postReceive(new ReceiveWorkRequest(1).wrId(i).sge(0, back, (long) i * size, size));
            }
            try (SctpConnectionManager manager = new SctpConnectionManager(UsrsctpStack.udp(Integer.parseInt(
                    ready[1])), InetAddress.getLoopbackAddress())) {
                manager.connect(qp, new InetSocketAddress(InetAddress.getLoopbackAddress(), sctpPort),
                        ConnectOptions.of(1, 1)).get(20, TimeUnit.SECONDS);
                SendWorkRequest send = new SendWorkRequest(1).opcode(WorkOpcode.SEND).sge(0, out, 0, size);
                assertThat(qp.postSend(send.wrId(100))).isZero();
                WorkCompletion completion = new WorkCompletion();
                java.util.Set<Long> done = new java.util.HashSet<>();
                while (done.size() < 2) { // the Send and its echo
                    done.add(next(cq, completion).wrId());
                }

                long retransmitted = Counters.process().get(Counter.SCTP_RETRANSMISSIONS);
                long lostBefore = Counters.process().get(Counter.CONNECTIONS_LOST);
                child.destroyForcibly(); // SIGKILL: no ABORT, no SHUTDOWN
                assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
                long killed = System.nanoTime();
                assertThat(qp.postSend(send.wrId(101))).isZero(); // data outstanding: retransmitted into silence
                java.time.Duration bound = ProtocolParameters.defaults().deadPeerBound(false);
                String why = lost.get(bound.toMillis(), TimeUnit.MILLISECONDS);
                long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);
                System.out.printf("killed peer reported lost after %d ms (%s); bounds %s with data, %s idle%n",
                        millis, why, ProtocolParameters.defaults().deadPeerBound(true), bound);
                assertThat(Counters.process().get(Counter.CONNECTIONS_LOST)).as("counted").isEqualTo(lostBefore + 1);
                assertThat(Counters.process().get(Counter.SCTP_RETRANSMISSIONS) - retransmitted)
                        .as("the Send retransmitted into silence, as usrsctp counts").isPositive();
                java.util.Map<Long, WcStatus> completed = new java.util.HashMap<>();
                while (completed.size() < 4) { // the Send completes once SCTP took it, or is flushed; nothing is lost
                    completed.put(next(cq, completion).wrId(), completion.status());
                }
                assertThat(completed).as("the Send posted after the kill and the three receives left")
                        .containsOnlyKeys(101L, 1L, 2L, 3L);
                assertThat(List.of(completed.get(1L), completed.get(2L), completed.get(3L))).as("the receives")
                        .containsOnly(WcStatus.WR_FLUSH_ERR);
            }
        } finally {
            child.destroyForcibly();
        }
    }

    /** The next completion (this test's wrIds only count once each), waiting up to 20 s for it. */
    private static WorkCompletion next(CompletionQueue cq, WorkCompletion completion) throws InterruptedException {
        while (!cq.poll(completion)) {
            cq.requestNotification(1);
            if (cq.poll(completion)) {
                break;
            }
            assertThat(cq.awaitNotification(java.time.Duration.ofSeconds(20))).as("a completion within 20 s")
                    .isTrue();
        }
        return completion;
    }
}
