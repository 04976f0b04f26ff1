package io.isthmus.e2e;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/** Ports for brokers the end-to-end tests start, and restart on the same port after a {@code kill -9}. */
public final class LoopbackPorts {
    /** Below Linux's default ephemeral range (32768-60999), as {@code ./isthmus cluster} picks its ports. */
    private static final int LOWEST = 20_000;

    private static final int SPAN = 12_000;

    /** Every port this JVM handed out: never again, bound yet or not. */
    private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

    private LoopbackPorts() {}

    /**
     * A loopback port nothing listens on now. Drawn below the ephemeral range: a port from that range can become the
     * local port of any outgoing connection while its broker is down, and the restarted broker would fail to bind it.
     */
    public static int freePort() throws IOException {
        for (int attempt = 0; attempt < 1_000; attempt++) {
            final int port = LOWEST + ThreadLocalRandom.current().nextInt(SPAN);
            if (!HANDED_OUT.add(port)) {
                continue; // given to an earlier caller, which may not have bound it yet
            }
            try (ServerSocket probe = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
                return port;
            } catch (final IOException taken) {
                // in use: draw another
            }
        }
        throw new IOException("no free loopback port between " + LOWEST + " and " + (LOWEST + SPAN));
    }
}
