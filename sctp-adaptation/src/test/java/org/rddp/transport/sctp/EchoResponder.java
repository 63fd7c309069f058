package org.rddp.transport.sctp;

import java.lang.foreign.Arena;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.EnumSet;
import org.rddp.work.QpEvent;
import org.rddp.work.WcStatus;
import org.rddp.work.WorkOpcode;
import org.rddp.transport.sctp.usrsctp.UsrsctpStack;
import org.rddp.verbs.AcceptOptions;
import org.rddp.verbs.Access;
import org.rddp.verbs.CompletionQueue;
import org.rddp.verbs.Listener;
import org.rddp.verbs.MemoryRegion;
import org.rddp.verbs.ProtectionDomain;
import org.rddp.verbs.QpAttributes;
import org.rddp.verbs.QueuePair;
import org.rddp.verbs.RdmaDevice;
import org.rddp.verbs.ReceiveWorkRequest;
import org.rddp.verbs.SendWorkRequest;
import org.rddp.verbs.WorkCompletion;
import org.rddp.wire.PrivateData;

/**
 * The other process of the two-process tests: accepts one connection over usrsctp, sends every message it
 * receives back, and when the peer disconnects shuts its usrsctp stack down. Prints {@code READY udp sctp},
 * then {@code FINISHED} or {@code NOT FINISHED}; exits 2 with a message if the stack cannot start.
 */
public final class EchoResponder {
    private EchoResponder() {
    }

    /** Runs the responder. */
    public static void main(String[] args) throws Exception {
        UsrsctpStack stack;
        try {
            stack = UsrsctpStack.udp();
        } catch (java.io.IOException e) {
            System.out.println("FAILED " + e.getMessage());
            System.exit(2);
            return;
        }
        InetAddress loopback = InetAddress.getLoopbackAddress();
        InetSocketAddress address = new InetSocketAddress(loopback, Integer.parseInt(args[0]));
        RdmaDevice device = new RdmaDevice("echo");
        ProtectionDomain pd = device.allocateProtectionDomain();
        CompletionQueue cq = device.createCompletionQueue(1024);
        java.util.concurrent.CompletableFuture<QpEvent> gone = new java.util.concurrent.CompletableFuture<>();
        QueuePair qp = pd.createQueuePair(new QpAttributes(cq, cq, null, 256, 256, 1, true, (pair, event, term, d) -> {
            if (event == QpEvent.DISCONNECTED || event == QpEvent.CONNECTION_LOST) {
                gone.complete(event);
            }
        }));
        int slot = 70000;
        MemoryRegion buffers = pd.register(Arena.ofAuto().allocate(256L * slot), EnumSet.of(Access.LOCAL_WRITE));
        ReceiveWorkRequest receive = new ReceiveWorkRequest(1);
        for (int i = 0; i < 256; i++) {
            qp.postReceive(receive.wrId(i).sge(0, buffers, (long) i * slot, slot));
        }
        ChunkTap tap = !Boolean.getBoolean("rddp.echo.verbose") ? ChunkTap.NONE
                : (association, outbound, streamId, ppid, unordered, chunk, length) -> System.err.println(
                        (outbound ? "out" : "in") + " sid " + streamId + " ppid " + ppid + " ssn "
                                + org.rddp.wire.Wire.u16(chunk, 0) + " length " + length);
        try (SctpConnectionManager manager = new SctpConnectionManager(stack, loopback, tap);
                Listener listener = manager.listen(address, request -> request.accept(qp,
                        new AcceptOptions(PrivateData.EMPTY, 1, 1)))) {
            System.out.println("READY " + UsrsctpStack.udpPort() + " " + address.getPort());
            SendWorkRequest echo = new SendWorkRequest(1).opcode(WorkOpcode.SEND);
            WorkCompletion completion = new WorkCompletion();
            long received = 0;
            long echoed = 0;
            long lastReport = System.nanoTime();
            while (!gone.isDone()) {
                if (Boolean.getBoolean("rddp.echo.verbose") && System.nanoTime() - lastReport > 2_000_000_000L) {
                    System.err.println("echo: received " + received + ", echoed " + echoed + ", " + qp);
                    lastReport = System.nanoTime();
                }
                if (!cq.poll(completion)) {
                    cq.requestNotification(false);
                    cq.awaitNotification(Duration.ofMillis(50));
                    continue;
                }
                if (completion.opcode() == org.rddp.verbs.WcOpcode.RECV && completion.status() == WcStatus.SUCCESS) {
                    received++;
                    long slotIndex = completion.wrId();
                    echo.wrId(1000 + slotIndex).sge(0, buffers, slotIndex * slot, (int) completion.byteLength());
                    qp.postSend(echo);
                } else if (completion.opcode() == org.rddp.verbs.WcOpcode.SEND) {
                    echoed++;
                    long slotIndex = completion.wrId() - 1000;
                    qp.postReceive(receive.wrId(slotIndex).sge(0, buffers, slotIndex * slot, slot));
                }
            }
        }
        System.out.println(UsrsctpStack.shutdown(Duration.ofSeconds(20)) ? "FINISHED" : "NOT FINISHED");
        System.exit(0);
    }
}
