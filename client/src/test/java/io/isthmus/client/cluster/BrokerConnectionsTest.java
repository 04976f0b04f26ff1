package io.isthmus.client.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.isthmus.client.network.KafkaConnection;
import io.isthmus.client.network.ReceiveBufferPool;
import io.isthmus.client.network.SocketBuffers;
import io.isthmus.client.security.SecuritySettings;
import io.isthmus.client.testing.FakeKafkaBroker;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.common.errors.NetworkException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Opening connections to a broker that is paused: its kernel accepts the connection (the listening socket's backlog)
 * and then nothing answers, which is what a broker stopped with SIGSTOP or wedged looks like from a client. Here a
 * listening socket that never accepts plays it.
 */
class BrokerConnectionsTest {
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

    private ServerSocket paused;
    private ReceiveBufferPool pool;

    @BeforeEach
    void open() throws Exception {
        paused = new ServerSocket(0, 16, InetAddress.getLoopbackAddress());
        pool = new ReceiveBufferPool(64 * 1024);
    }

    @AfterEach
    void close() throws Exception {
        paused.close();
        pool.close();
    }

    private InetSocketAddress pausedAddress() {
        return new InetSocketAddress(paused.getInetAddress(), paused.getLocalPort());
    }

    private BrokerConnections connections(final List<InetSocketAddress> bootstrap, final Duration setupTimeout) {
        return new BrokerConnections(
                bootstrap,
                "test",
                pool,
                REQUEST_TIMEOUT,
                setupTimeout,
                SecuritySettings.PLAINTEXT,
                SocketBuffers.DEFAULT);
    }

    @Test
    void aBrokerThatAcceptsButAnswersNothingIsGivenUpAfterTheSetupTimeoutNotTheRequestTimeout() {
        try (BrokerConnections connections = connections(List.of(pausedAddress()), Duration.ofMillis(300))) {
            final long start = System.nanoTime();
            assertThatThrownBy(connections::any)
                    .isInstanceOf(NetworkException.class)
                    .hasMessageContaining("no bootstrap broker reachable");
            assertThat(Duration.ofNanos(System.nanoTime() - start))
                    .as("time to give the paused broker up (request timeout %s)", REQUEST_TIMEOUT)
                    .isLessThan(Duration.ofSeconds(10));
        }
    }

    @Test
    void theNextBootstrapBrokerIsAskedOnceThePausedOneIsGivenUp() throws Exception {
        try (FakeKafkaBroker broker = new FakeKafkaBroker((short) 17);
                BrokerConnections connections = connections(
                        List.of(
                                pausedAddress(),
                                BrokerConnections.parseBootstrap(broker.bootstrapServers())
                                        .getFirst()),
                        Duration.ofMillis(300))) {
            final long start = System.nanoTime();
            final ClusterMetadata metadata = connections.refresh(null);
            assertThat(metadata.topic(FakeKafkaBroker.TOPIC)).isNotNull();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
        }
    }

    @Test
    void aConnectionBeingOpenedToAPausedBrokerHoldsUpNeitherItsCallerNorTheConnectionsToOthers() throws Exception {
        final Duration setupTimeout = Duration.ofSeconds(5); // ample for opening a connection to a running broker
        try (FakeKafkaBroker broker = new FakeKafkaBroker((short) 17);
                BrokerConnections connections =
                        connections(BrokerConnections.parseBootstrap(broker.bootstrapServers()), setupTimeout)) {
            broker.alsoNames(7, pausedAddress());
            connections.refresh(null);

            final long start = System.nanoTime();
            assertThat(connections.nodeIfOpen(7)).as("broker 7, being opened").isNull();
            KafkaConnection healthy = null;
            while (healthy == null) {
                assertThat(connections.nodeIfOpen(7))
                        .as("broker 7, still being opened")
                        .isNull();
                healthy = connections.nodeIfOpen(0);
                Thread.sleep(5);
            }
            assertThat(Duration.ofNanos(System.nanoTime() - start))
                    .as("time until broker 0's connection was open beside the paused broker's")
                    .isLessThan(setupTimeout);
            assertThat(connections.nodeIfOpen(0))
                    .as("the open connection, kept")
                    .isSameAs(healthy);

            // The paused broker's opening fails once, at its setup timeout, and the next call opens anew.
            NetworkException failed = null;
            while (failed == null) {
                try {
                    assertThat(connections.nodeIfOpen(7)).isNull();
                    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(setupTimeout.multipliedBy(5));
                    Thread.sleep(20);
                } catch (final NetworkException e) {
                    failed = e;
                }
            }
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(setupTimeout);
            assertThat(failed).hasMessageContaining(pausedAddress().toString().replaceFirst("^.*/", ""));
            assertThat(connections.nodeIfOpen(7)).as("opened anew").isNull();
        }
    }
}
