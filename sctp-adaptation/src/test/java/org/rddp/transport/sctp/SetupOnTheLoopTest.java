package org.rddp.transport.sctp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.rddp.llp.Counters;
import org.rddp.loop.Loop;
import org.rddp.sctp.DdpSctp;
import org.rddp.transport.sctp.usrsctp.UsrsctpStack;
import org.rddp.verbs.CompletionQueue;
import org.rddp.verbs.ConnectOptions;
import org.rddp.verbs.Connection;
import org.rddp.verbs.QpAttributes;
import org.rddp.verbs.RdmaDevice;
import org.rddp.wire.PrivateData;

/**
 * An SCTP association lives on one loop from its first packet: the connect, its deadline and the check of the peer's
 * Adaptation Layer Indication run there, with no thread of their own and nothing blocking.
 */
class SetupOnTheLoopTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private final RdmaDevice device = new RdmaDevice("setup-on-the-loop");
    private final CompletionQueue cq = device.createCompletionQueue(16);

    private static Set<String> threads() {
        return Thread.getAllStackTraces().keySet().stream().map(Thread::getName).collect(Collectors.toSet());
    }

    /**
     * A peer whose UDP port swallows every packet never answers the INIT: the connect ends at the deadline it was
     * given, kept by the association's loop, and no association is left behind. No thread starts for it.
     */
    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aConnectNobodyAnswersEndsAtItsDeadlineWithNoThreadOfItsOwn() throws Exception {
        try (DatagramSocket blackHole = new DatagramSocket(0, LOOPBACK);
                SctpConnectionManager initiator = new SctpConnectionManager(
                        UsrsctpStack.udp(blackHole.getLocalPort()), LOOPBACK)) {
            Set<String> before = threads();
            CompletableFuture<Connection> connecting = initiator.connect(
                    device.allocateProtectionDomain().createQueuePair(QpAttributes.of(cq, 4, 4)),
                    new InetSocketAddress(LOOPBACK, TestPorts.next()),
                    new ConnectOptions(PrivateData.EMPTY, false, 1, 1, false, Set.of(), Duration.ofMillis(300)));
            DatagramPacket packet = new DatagramPacket(new byte[2048], 2048);
            blackHole.setSoTimeout(20_000);
            blackHole.receive(packet);
            assertThat(packet.getData()[12]).as("the first chunk of what arrived: an INIT (RFC 9260 §3.3.2)")
                    .isEqualTo((byte) 1);
            Throwable failure = catchThrowable(() -> connecting.get(20, TimeUnit.SECONDS));
            assertThat(failure).isInstanceOf(ExecutionException.class);
            assertThat(failure.getCause()).isInstanceOf(TimeoutException.class).hasMessageContaining("300 ms");
            assertThat(initiator.associationCount()).isZero();
            Set<String> started = threads();
            started.removeAll(before);
            // the JDK may start threads of its own meanwhile (a process reaper): the library's are what count
            assertThat(started).as("the library's threads that started while it connected")
                    .noneMatch(name -> name.contains("sctp") || name.startsWith("rddp"));
            assertThat(threads()).noneMatch(name -> name.startsWith("sctp-connect") || name.equals("usrsctp-timers"));
        }
    }

    /**
     * The waiting connect of tools and raw peers runs the handshake on the caller's manual loop, which the caller
     * drives while it waits; a loop with a thread of its own cannot wait for itself.
     */
    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aWaitingConnectDrivesTheCallersManualLoop() throws Exception {
        UsrsctpStack stack = UsrsctpStack.udp();
        try (Loop mine = Loop.manual("mine", stack.newPoller());
                SctpStack.Listening listening = stack.listen(new InetSocketAddress(LOOPBACK, TestPorts.next()), 1,
                        DdpSctp.ADAPTATION_INDICATION)) {
            CompletableFuture<SctpSocket> accepted = new CompletableFuture<>();
            listening.start(accepted::complete);
            try (SctpSocket socket = stack.connect(mine, new InetSocketAddress(LOOPBACK, 0), listening.address(), 1,
                    DdpSctp.ADAPTATION_INDICATION, Duration.ofSeconds(20))) {
                assertThat(socket.streams()).isOne();
                accepted.get(20, TimeUnit.SECONDS).close();
            }
            CompletableFuture<Throwable> fromItsOwnThread = new CompletableFuture<>();
            Loop own = stack.sharedLoop();
            own.execute(() -> fromItsOwnThread.complete(catchThrowable(() -> stack.connect(own,
                    new InetSocketAddress(LOOPBACK, 0), listening.address(), 1, DdpSctp.ADAPTATION_INDICATION,
                    Duration.ofSeconds(1)))));
            assertThat(fromItsOwnThread.get(20, TimeUnit.SECONDS)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("cannot run it while its own thread waits");
        }
        assertThatThrownBy(() -> stack.connect(stack.sharedLoop(), new InetSocketAddress(LOOPBACK, 0),
                new InetSocketAddress(LOOPBACK, 9), 1, DdpSctp.ADAPTATION_INDICATION, (socket, failure) -> { }))
                .as("a connect starts on its loop").isInstanceOf(IllegalStateException.class);
    }

    /**
     * An accepted association whose peer never shows its Adaptation Layer Indication (RFC 5043 §5.1) is aborted at
     * the setup deadline its loop keeps; one that showed it is kept past the same deadline.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    @Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void anAcceptedAssociationThatNeverShowsItSpeaksDdpIsAbortedAtTheSetupDeadline(boolean indicated) {
        ScriptedSctpSocket socket = new ScriptedSctpSocket(8, 2_000);
        java.util.List<String> down = new java.util.ArrayList<>();
        try (org.rddp.verbs.testing.LogCapture log = org.rddp.verbs.testing.LogCapture.of("org.rddp.transport.sctp");
                Loop loop = Loop.manual("setup-deadline", org.rddp.loop.Poller.parking())) {
            DdpAssociation association = new DdpAssociation(socket, loop, gone -> down.add("down"), ChunkTap.NONE,
                    new AssociationBudget(SctpLimits.HELD_PER_ASSOCIATION, AssociationBudget.Shared.NONE),
                    Counters.create());
            association.start((session, initiate) -> { });
            if (indicated) {
                socket.arrive(SctpSocket.ReceivedMessage.ADAPTATION, DdpSctp.ADAPTATION_INDICATION);
            }
            association.requireValidationWithin(Duration.ofMillis(50));
            boolean[] past = new boolean[1];
            loop.schedule(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100), () -> past[0] = true);
            while (!past[0]) {
                loop.idle(-1); // the deadlines wake it: no limit of its own
            }
            if (indicated) {
                assertThat(association.validated()).isCompleted();
                assertThat(socket.aborted).isFalse();
                assertThat(down).isEmpty();
                association.lose("the test ended");
            } else {
                assertThat(association.validated()).isCompletedExceptionally();
                assertThat(catchThrowable(() -> association.validated().join())).hasMessageContaining(
                        "no Adaptation Layer Indication within 50 ms");
                assertThat(socket.aborted).isTrue();
                assertThat(down).containsExactly("down");
                assertThat(log.lines()).as("logged at DEBUG").anySatisfy(line -> assertThat(line).startsWith("FINE")
                        .contains("down: no Adaptation Layer Indication within 50 ms"));
            }
        }
    }
}
