package io.isthmus.client.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.isthmus.client.security.SecuritySettings;
import io.isthmus.protocol.control.ControlApiKeys;
import io.isthmus.protocol.control.ReleaseAccessRequest;
import io.isthmus.protocol.control.ReleaseAccessResponse;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A broker that breaks the control protocol is reported as such, not taken for one out of reach: a transport retries
 * an unreachable broker quietly (its reader looks for the leader again), and would retry a broken one for ever.
 */
class ControlChannelTest {
    /** The transport's "out of reach" type. */
    static final class Unreachable extends RuntimeException {
        Unreachable(final String message, final Throwable cause) {
            super(message, cause);
        }
    }

    /** The transport's "broke the protocol" type. */
    static final class Violation extends RuntimeException {
        Violation(final String message, final Throwable cause) {
            super(message, cause);
        }
    }

    @Test
    void anAnswerToAnotherRequestIsAViolationAndTheNextRequestFindsTheConnectionGone() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            // Reads one request frame, answers it under a correlation id it never had, then waits for what comes next.
            final CompletableFuture<Integer> afterTheAnswer = CompletableFuture.supplyAsync(() -> {
                try (Socket socket = server.accept()) {
                    final DataInputStream in = new DataInputStream(socket.getInputStream());
                    in.readFully(new byte[in.readInt()]);
                    final DataOutputStream out = new DataOutputStream(socket.getOutputStream());
                    out.writeInt(4);
                    out.writeInt(12345);
                    out.flush();
                    return in.read();
                } catch (final IOException e) {
                    throw new IllegalStateException(e);
                }
            });
            final InetSocketAddress address =
                    new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort());
            try (ControlChannel control = ControlChannel.open(
                    address, "client-1", 2_000, SecuritySettings.PLAINTEXT, Unreachable::new, Violation::new)) {
                assertThatThrownBy(() -> release(control))
                        .isInstanceOf(Violation.class)
                        .hasMessageContaining("out of order")
                        .hasMessageContaining("answered=12345");
                assertThat(afterTheAnswer.get(10, TimeUnit.SECONDS))
                        .as("the client closed the connection on the violation (end of stream, not another request)")
                        .isEqualTo(-1);
                assertThat(control.peerClosed()).isTrue();
                assertThatThrownBy(() -> release(control)).isInstanceOf(Unreachable.class);
            }
        }
    }

    @Test
    void aBrokerThatIsNotListeningIsOutOfReach() throws Exception {
        final int port;
        try (ServerSocket closed = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = closed.getLocalPort();
        }
        assertThatThrownBy(() -> ControlChannel.open(
                        new InetSocketAddress(InetAddress.getLoopbackAddress(), port),
                        "client-1",
                        2_000,
                        SecuritySettings.PLAINTEXT,
                        Unreachable::new,
                        Violation::new))
                .isInstanceOf(Unreachable.class)
                .hasMessageContaining("cannot open a control connection");
    }

    private static ReleaseAccessResponse release(final ControlChannel control) {
        final ReleaseAccessRequest request = new ReleaseAccessRequest();
        request.wrapForEncode(control.requestFrame(), control.requestBodyOffset())
                .partition(0)
                .access(ReleaseAccessRequest.CONSUME)
                .topic("orders");
        final ReleaseAccessResponse response =
                control.call(ControlApiKeys.RELEASE_ACCESS, request, new ReleaseAccessResponse());
        assertThat(response).isNotNull();
        return response;
    }
}
