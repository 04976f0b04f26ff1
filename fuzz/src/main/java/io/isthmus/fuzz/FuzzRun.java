package io.isthmus.fuzz;

import io.isthmus.broker.Broker;
import io.isthmus.broker.config.Endpoint;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import io.netty.util.internal.PlatformDependent;
import java.io.DataInputStream;
import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One fuzz run against a broker: {@code connections} {@link FuzzConnection}s send generated frames until {@code
 * frames} have been delivered (or {@code maxDuration} passes), while a {@link WellBehavedClient} produces and
 * consumes; then the broker must still answer, and the well-behaved client must find every acknowledged record.
 *
 * @param frames frames to deliver
 * @param connections fuzzing connections at once
 * @param window frames per window, each window followed by a sync frame
 * @param seed the run's seed; connection {@code i} uses {@code seed + i}
 * @param lieProbability the chance that one length or count in a body lies
 * @param frameMutationProbability the chance that a whole frame is damaged
 * @param answerWaitMs how long a sync frame's answer may take before the connection is given up
 * @param maxDuration a bound on the run, whatever the frame count
 */
public record FuzzRun(
        long frames,
        int connections,
        int window,
        long seed,
        double lieProbability,
        double frameMutationProbability,
        int answerWaitMs,
        Duration maxDuration) {

    /** The defaults of {@code ./isthmus fuzz}: about one window in four ends in a closed connection. */
    public static FuzzRun of(final long frames, final long seed) {
        return new FuzzRun(frames, 8, 16, seed, 0.002, 0.01, 250, Duration.ofHours(24));
    }

    public FuzzRun withConnections(final int count) {
        return new FuzzRun(
                frames, count, window, seed, lieProbability, frameMutationProbability, answerWaitMs, maxDuration);
    }

    public FuzzRun withMutations(final double lies, final double frameMutations) {
        return new FuzzRun(frames, connections, window, seed, lies, frameMutations, answerWaitMs, maxDuration);
    }

    public FuzzRun withMaxDuration(final Duration bound) {
        return new FuzzRun(
                frames, connections, window, seed, lieProbability, frameMutationProbability, answerWaitMs, bound);
    }

    /** A listener to fuzz, and whether it expects a SASL exchange first. */
    record Target(InetSocketAddress address, boolean sasl) {}

    /**
     * Runs against a broker in this JVM, watching its buffer memory and counting its unexpected failures. The fuzzing
     * connections are spread over all its listeners (SASL ones get mostly hostile SASL exchanges); the well-behaved
     * client uses the first.
     */
    public FuzzReport against(final Broker embedded) throws Exception {
        final List<Target> targets = new ArrayList<>();
        for (final Endpoint endpoint : embedded.endpoints()) {
            targets.add(new Target(
                    new InetSocketAddress(endpoint.host(), endpoint.port()),
                    endpoint.listenerName().startsWith("SASL")));
        }
        return run(targets, embedded.bootstrapServers(), embedded);
    }

    private static final int SASL_WINDOW = 4;

    /** Connection {@code i}'s listener: a SASL one for every fourth connection when there is one, else a plain one. */
    private static Target pick(final List<Target> targets, final int i) {
        final List<Target> sasl = targets.stream().filter(Target::sasl).toList();
        final List<Target> plain = targets.stream().filter(t -> !t.sasl()).toList();
        if (plain.isEmpty() || (!sasl.isEmpty() && i % 4 == 3)) {
            return sasl.get(i % sasl.size());
        }
        return plain.get(i % plain.size());
    }

    /** Runs against the (PLAINTEXT) listener at {@code host:port} of a broker elsewhere. */
    public FuzzReport against(final String host, final int port) throws Exception {
        return run(List.of(new Target(new InetSocketAddress(host, port), false)), host + ":" + port, null);
    }

    /** @param embedded the broker, when it runs in this JVM; null for a remote one */
    private FuzzReport run(final List<Target> targets, final String goodBootstrap, final Broker embedded)
            throws Exception {
        final boolean sameJvm = embedded != null;
        final InetSocketAddress broker = targets.getFirst().address();
        final FuzzConnection.Counters counters = new FuzzConnection.Counters();
        final long deadline = System.nanoTime() + maxDuration.toNanos();
        final AtomicLong peakBuffers = new AtomicLong(sameJvm ? bufferMemoryUsed() : -1);
        final long started = System.nanoTime();
        final List<Thread> workers = new ArrayList<>();
        final WellBehavedClient.Outcome outcome;
        final Duration elapsed;
        try (WellBehavedClient wellBehaved = new WellBehavedClient(goodBootstrap)) {
            for (int i = 0; i < connections; i++) {
                // A quarter of the connections (at most) on SASL listeners, in short windows: before authentication
                // almost any frame ends the connection, so long windows would waste the rest.
                final Target target = pick(targets, i);
                final FrameGenerator generator =
                        new FrameGenerator(seed + i, lieProbability, frameMutationProbability, target.sasl());
                workers.add(Thread.ofPlatform()
                        .name("fuzz-" + i)
                        .start(new FuzzConnection(
                                target.address(),
                                generator,
                                target.sasl() ? SASL_WINDOW : window,
                                answerWaitMs,
                                () -> counters.framesDelivered().get() >= frames || System.nanoTime() > deadline,
                                counters)));
            }
            while (workers.stream().anyMatch(Thread::isAlive)) {
                if (sameJvm) {
                    peakBuffers.accumulateAndGet(bufferMemoryUsed(), Math::max);
                }
                Thread.sleep(100);
            }
            elapsed = Duration.ofNanos(System.nanoTime() - started);
            outcome = wellBehaved.stopAndCheck(Duration.ofSeconds(60));
        } finally {
            for (final Thread worker : workers) {
                worker.join();
            }
        }
        return new FuzzReport(
                counters.framesSent().get(),
                counters.framesDelivered().get(),
                counters.framesMutated().get(),
                counters.connections().get(),
                counters.closedByBroker().get(),
                counters.unanswered().get(),
                outcome,
                answers(broker),
                sameJvm ? embedded.server().metrics().unexpectedFailures() : -1,
                peakBuffers.get(),
                elapsed);
    }

    /** Whether a fresh connection's ApiVersions is answered within five seconds. */
    static boolean answers(final InetSocketAddress broker) {
        final FrameGenerator.Frame sync = new FrameGenerator(0, 0, 0).sync();
        try (Socket socket = new Socket()) {
            socket.connect(broker, 5_000);
            socket.setSoTimeout(5_000);
            socket.getOutputStream().write(sync.bytes());
            final DataInputStream in = new DataInputStream(socket.getInputStream());
            final byte[] answer = new byte[in.readInt()];
            in.readFully(answer);
            return answer.length >= 4 && java.nio.ByteBuffer.wrap(answer).getInt() == sync.correlationId();
        } catch (final IOException e) {
            return false;
        }
    }

    /**
     * Buffer memory in use in this JVM: what Netty's allocator holds (the broker's network buffers, on the heap or
     * off it, depending on what the JVM lets Netty do), Netty's own cleaner-less direct memory, and NIO's direct
     * buffers.
     */
    static long bufferMemoryUsed() {
        long used = Math.max(0, PlatformDependent.usedDirectMemory());
        if (ByteBufAllocator.DEFAULT instanceof ByteBufAllocatorMetricProvider provider) {
            used += provider.metric().usedHeapMemory() + provider.metric().usedDirectMemory();
        }
        for (final BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if (pool.getName().equals("direct")) {
                used += pool.getMemoryUsed();
            }
        }
        return used;
    }
}
