package io.isthmus.fuzz;

import io.isthmus.broker.Broker;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A hostile-load run against a broker in this JVM: rounds of {@link GoodTraffic} on an idle broker and on the same
 * broker under a {@link HostileLoad}, alternating which goes first, {@code repetitions} of each; the report gives the
 * medians side by side, the most buffer memory the broker used under load, and what the hostile connections met.
 *
 * @param connections hostile connections held open during a loaded round
 * @param slowReaders of those, connections that pipeline requests and never read
 * @param partialFrames of those, connections that send half frames
 * @param records records the good producer sends (and the consumer reads) per round
 * @param repetitions rounds of each kind
 */
public record LoadRun(int connections, int slowReaders, int partialFrames, int records, int repetitions) {
    /** Time for the never-reading connections to fill what the broker lets them fill. */
    private static final long SETTLE_MS = 2_000;

    public LoadReport against(final Broker broker) throws Exception {
        final String address = broker.bootstrapServers();
        final int colon = address.lastIndexOf(':');
        final InetSocketAddress socketAddress =
                new InetSocketAddress(address.substring(0, colon), Integer.parseInt(address.substring(colon + 1)));
        final GoodTraffic traffic = new GoodTraffic(address, records);
        final String seedTopic = traffic.seedTopic();
        traffic.round(); // warm-up: the JIT, the clients' first connections; not counted
        final List<GoodTraffic.Rates> idle = new ArrayList<>();
        final List<GoodTraffic.Rates> loaded = new ArrayList<>();
        final AtomicLong peakBuffers = new AtomicLong(FuzzRun.bufferMemoryUsed());
        long hostileBuffers = 0;
        final AtomicLong peakConnections = new AtomicLong();
        final AtomicLong peakQueuedAnswers = new AtomicLong();
        long partialClosed = 0;
        long idleClosed = 0;
        long slowRequests = 0;
        for (int r = 0; r < repetitions; r++) {
            for (int half = 0; half < 2; half++) {
                final boolean underLoad = (r + half) % 2 == 1; // idle first in even repetitions, loaded first in odd
                if (!underLoad) {
                    awaitConnectionsBelow(broker, 10);
                    idle.add(traffic.round());
                    continue;
                }
                final long before = FuzzRun.bufferMemoryUsed();
                final AtomicLong roundPeak = new AtomicLong(before);
                try (HostileLoad load = new HostileLoad(socketAddress, seedTopic)) {
                    load.start(connections, slowReaders, partialFrames);
                    final Thread sampler = Thread.ofPlatform().daemon().start(() -> {
                        while (!Thread.currentThread().isInterrupted()) {
                            roundPeak.accumulateAndGet(FuzzRun.bufferMemoryUsed(), Math::max);
                            peakConnections.accumulateAndGet(
                                    broker.server().metrics().connections(), Math::max);
                            peakQueuedAnswers.accumulateAndGet(broker.server().queuedAnswerBytes(), Math::max);
                            try {
                                Thread.sleep(20);
                            } catch (final InterruptedException e) {
                                return;
                            }
                        }
                    });
                    try {
                        // What the hostile connections cost on their own: until the never-reading ones are no longer
                        // read, before the good clients add their own buffers.
                        Thread.sleep(SETTLE_MS);
                        hostileBuffers = Math.max(hostileBuffers, roundPeak.get() - before);
                        loaded.add(traffic.round());
                    } finally {
                        sampler.interrupt();
                        sampler.join();
                    }
                    peakBuffers.accumulateAndGet(roundPeak.get(), Math::max);
                    partialClosed += load.partialFramesClosed();
                    idleClosed += load.idleClosed();
                    slowRequests += load.slowReaderRequests();
                }
            }
        }
        return new LoadReport(
                this,
                idle,
                loaded,
                peakBuffers.get(),
                hostileBuffers,
                peakQueuedAnswers.get(),
                peakConnections.get(),
                partialClosed,
                idleClosed,
                slowRequests,
                FuzzRun.answers(socketAddress),
                broker.server().metrics().unexpectedFailures());
    }

    /** Waits until the previous round's hostile connections are gone from the broker, so an idle round is idle. */
    private static void awaitConnectionsBelow(final Broker broker, final long count) throws InterruptedException {
        final long deadline = System.nanoTime() + 60_000_000_000L;
        while (broker.server().metrics().connections() >= count) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "the broker still has " + broker.server().metrics().connections()
                                + " connections a minute after the hostile ones closed");
            }
            Thread.sleep(20);
        }
    }
}
