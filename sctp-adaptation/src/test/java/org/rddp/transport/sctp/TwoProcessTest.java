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
import org.rddp.verbs.WcStatus;
import org.rddp.verbs.WorkOpcode;
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
}
