package io.isthmus.benchmarks.harness;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * This machine's ceilings, measured in the same run as the brokers: single-thread memcpy bandwidth ({@link
 * MemorySegment#copy} of 1 MiB blocks into a 256 MiB ring, far beyond the caches) and loopback TCP bandwidth (one
 * {@link SocketChannel} pair, 1 MiB direct buffers, a writer thread and a reading thread). Java on both sides, so the
 * limits are what a Java broker could reach at best.
 */
public final class PhysicalLimits {
    private static final int BLOCK = 1 << 20;
    private static final long RING = 256L << 20;
    private static final double WARMUP_SECONDS = 0.3;

    private PhysicalLimits() {}

    /** {@code memcpy_gb_per_s} and {@code tcp_loopback_gb_per_s} (GB = 10^9 bytes), each measured for {@code seconds}. */
    public static Map<String, Object> measure(final double seconds) throws IOException, InterruptedException {
        final Map<String, Object> limits = new LinkedHashMap<>();
        limits.put("memcpy_gb_per_s", memcpy(seconds) / 1e9);
        limits.put("tcp_loopback_gb_per_s", tcpLoopback(seconds) / 1e9);
        limits.put("seconds_each", seconds);
        limits.put(
                "method",
                "Java, one thread per side: MemorySegment.copy of 1 MiB blocks into a 256 MiB ring;"
                        + " SocketChannel pair over 127.0.0.1 with 1 MiB direct buffers");
        return limits;
    }

    static double memcpy(final double seconds) {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment source = arena.allocate(BLOCK, 4096);
            source.fill((byte) 0x33);
            final MemorySegment ring = arena.allocate(RING, 4096);
            ring.fill((byte) 0);
            copyFor(source, ring, WARMUP_SECONDS);
            return copyFor(source, ring, seconds);
        }
    }

    private static double copyFor(final MemorySegment source, final MemorySegment ring, final double seconds) {
        final long start = System.nanoTime();
        final long until = start + (long) (seconds * 1e9);
        long copied = 0;
        long at = 0;
        long now;
        do {
            for (int i = 0; i < 16; i++) {
                MemorySegment.copy(source, 0, ring, at, BLOCK);
                at = (at + BLOCK) % RING;
                copied += BLOCK;
            }
            now = System.nanoTime();
        } while (now < until);
        return copied / ((now - start) / 1e9);
    }

    static double tcpLoopback(final double seconds) throws IOException, InterruptedException {
        try (ServerSocketChannel server = ServerSocketChannel.open()) {
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            final AtomicBoolean stop = new AtomicBoolean();
            final CompletableFuture<Void> writerDone = new CompletableFuture<>();
            try (SocketChannel client = SocketChannel.open(server.getLocalAddress());
                    SocketChannel accepted = server.accept()) {
                Thread.ofPlatform().name("tcp-probe-writer").start(() -> {
                    final ByteBuffer out = ByteBuffer.allocateDirect(BLOCK);
                    try {
                        while (!stop.get()) {
                            out.clear();
                            while (out.hasRemaining()) {
                                client.write(out);
                            }
                        }
                        client.shutdownOutput();
                        writerDone.complete(null);
                    } catch (final IOException e) {
                        writerDone.completeExceptionally(e);
                    }
                });
                final ByteBuffer in = ByteBuffer.allocateDirect(BLOCK);
                readFor(accepted, in, WARMUP_SECONDS);
                final double bandwidth = readFor(accepted, in, seconds);
                stop.set(true);
                // Drain until the writer has seen the flag, finished its last block and shut its side down.
                do {
                    in.clear();
                } while (accepted.read(in) >= 0);
                writerDone.get(10, TimeUnit.SECONDS);
                return bandwidth;
            } catch (final ExecutionException | TimeoutException e) {
                throw new IOException("loopback probe writer failed", e);
            }
        }
    }

    private static double readFor(final SocketChannel channel, final ByteBuffer in, final double seconds)
            throws IOException {
        final long start = System.nanoTime();
        final long until = start + (long) (seconds * 1e9);
        long received = 0;
        long now;
        do {
            in.clear();
            final int read = channel.read(in);
            if (read < 0) {
                throw new IOException("loopback probe: writer closed early");
            }
            received += read;
            now = System.nanoTime();
        } while (now < until);
        return received / ((now - start) / 1e9);
    }
}
