package org.rddp.transport.mpa;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.ValueSource;
import org.rddp.verbs.ConnectOptions;
import org.rddp.verbs.Connection;
import org.rddp.verbs.ConnectionManager;
import org.rddp.verbs.ConnectionRequest;
import org.rddp.verbs.Listener;
import org.rddp.verbs.QueuePair;
import org.rddp.verbs.testing.ScenarioSuite;
import org.rddp.verbs.testing.TransportFixture;

/**
 * The engine's scenario suite over TCP/MPA with a {@link SplittingProxy} between the two sides: the startup
 * frames and the first 64 KiB of FPDUs of every connection reach the reader an octet at a time, the rest in odd
 * pieces, with and without Markers (CRC on).
 */
@ParameterizedClass(name = "markers {0}")
@ValueSource(booleans = {false, true})
class MpaSplitStreamScenarioTest extends ScenarioSuite {
    @Parameter
    boolean markers;

    @Override
    protected TransportFixture createTransport() {
        MpaTransport direct = new MpaTransport(MpaOptions.defaults().withMarkers(markers));
        Map<SocketAddress, SplittingProxy> proxies = new ConcurrentHashMap<>();
        ConnectionManager throughProxy = new ConnectionManager() {
            @Override
            public Listener listen(SocketAddress address, Consumer<ConnectionRequest> handler) throws IOException {
                return direct.initiator().listen(address, handler);
            }

            @Override
            public CompletableFuture<Connection> connect(QueuePair qp, SocketAddress remote, ConnectOptions options) {
                SplittingProxy proxy = proxies.computeIfAbsent(remote, target -> {
                    try {
                        return new SplittingProxy((InetSocketAddress) target);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                });
                return direct.initiator().connect(qp, proxy.address(), options);
            }

            @Override
            public java.util.List<org.rddp.verbs.QpStatistics> statistics() {
                return direct.initiator().statistics();
            }

            @Override
            public void close() {
                for (SplittingProxy proxy : proxies.values()) {
                    try {
                        proxy.close();
                    } catch (IOException e) {
                        // closing anyway
                    }
                }
            }
        };
        return new TransportFixture() {
            @Override
            public ConnectionManager initiator() {
                return throughProxy;
            }

            @Override
            public ConnectionManager responder() {
                return direct.responder();
            }

            @Override
            public SocketAddress nextAddress() {
                return direct.nextAddress();
            }

            @Override
            public int mulpdu() {
                return direct.mulpdu();
            }

            @Override
            public void close() {
                direct.close();
                try {
                    throughProxy.close();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        };
    }
}
