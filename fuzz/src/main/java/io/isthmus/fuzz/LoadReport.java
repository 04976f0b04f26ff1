package io.isthmus.fuzz;

import java.util.List;

/**
 * What a {@link LoadRun} measured: the good client's rates on the idle broker and under load (each a list of rounds),
 * and what the load cost the broker.
 *
 * @param peakBufferBytes the most buffer memory the broker's JVM held during a loaded round (Netty's allocator, used or
 *     cached, and direct buffers)
 * @param hostileBufferBytes the most that buffer memory grew once the hostile connections were open and settled, before
 *     the good clients ran, over what it was just before they opened: what they cost on their own
 * @param peakQueuedAnswerBytes the most bytes of answers the broker held for clients that had not taken them, over all
 *     connections (at most the 256 KiB high-water mark plus one answer per connection that stopped reading)
 * @param peakConnections the most connections the broker held at once
 * @param partialFramesClosed partial-frame connections the broker closed (its request read timeout)
 * @param idleClosed idle connections the broker closed (none expected within connections.max.idle.ms)
 * @param slowReaderRequests requests the slow readers wrote into their sockets (the broker reads a few; the rest wait in
 *     the kernel's buffers, the broker's bounded by {@code socket.receive.buffer.bytes})
 * @param brokerAlive whether the broker answered a fresh connection at the end
 * @param serverErrors UNKNOWN_SERVER_ERROR answers, each a bug
 */
public record LoadReport(
        LoadRun run,
        List<GoodTraffic.Rates> idle,
        List<GoodTraffic.Rates> loaded,
        long peakBufferBytes,
        long hostileBufferBytes,
        long peakQueuedAnswerBytes,
        long peakConnections,
        long partialFramesClosed,
        long idleClosed,
        long slowReaderRequests,
        boolean brokerAlive,
        long serverErrors) {

    public double idleProduceMedian() {
        return GoodTraffic.median(idle.stream().map(GoodTraffic.Rates::produced).toList());
    }

    public double loadedProduceMedian() {
        return GoodTraffic.median(
                loaded.stream().map(GoodTraffic.Rates::produced).toList());
    }

    public double idleConsumeMedian() {
        return GoodTraffic.median(idle.stream().map(GoodTraffic.Rates::consumed).toList());
    }

    public double loadedConsumeMedian() {
        return GoodTraffic.median(
                loaded.stream().map(GoodTraffic.Rates::consumed).toList());
    }

    /** How many times slower the good producer is under load (medians): the target is at most 2. */
    public double produceSlowdown() {
        return idleProduceMedian() / loadedProduceMedian();
    }

    public double consumeSlowdown() {
        return idleConsumeMedian() / loadedConsumeMedian();
    }

    public String format() {
        return String.format(
                "load: %,d hostile connections (%,d never reading, %,d sending half frames, the rest idle),"
                        + " %,d records of 100 B per round, %d rounds each way, alternating%n"
                        + "  produce (records/s): idle %,.0f, under load %,.0f: %.2fx slower (rounds: idle %s, loaded"
                        + " %s)%n"
                        + "  consume (records/s): idle %,.0f, under load %,.0f: %.2fx slower (rounds: idle %s, loaded"
                        + " %s)%n"
                        + "  broker: %s, %d unexpected server errors, at most %,d connections at once, buffer memory"
                        + " at most %.1f MiB (Netty's allocator, used or cached, and direct buffers), of which the"
                        + " hostile connections added at most %.1f MiB; answers queued for clients at most %.1f MiB%n"
                        + "  hostile side: %,d half-frame connections closed by the read timeout, %,d idle ones"
                        + " closed, %,d requests written into their sockets by the connections that never read"
                        + " (most wait in kernel buffers: the broker stopped reading them)",
                run.connections(),
                run.slowReaders(),
                run.partialFrames(),
                run.records(),
                run.repetitions(),
                idleProduceMedian(),
                loadedProduceMedian(),
                produceSlowdown(),
                rates(idle, true),
                rates(loaded, true),
                idleConsumeMedian(),
                loadedConsumeMedian(),
                consumeSlowdown(),
                rates(idle, false),
                rates(loaded, false),
                brokerAlive ? "alive" : "NOT ANSWERING",
                serverErrors,
                peakConnections,
                peakBufferBytes / 1048576.0,
                hostileBufferBytes / 1048576.0,
                peakQueuedAnswerBytes / 1048576.0,
                partialFramesClosed,
                idleClosed,
                slowReaderRequests);
    }

    private static String rates(final List<GoodTraffic.Rates> rounds, final boolean produced) {
        return rounds.stream()
                .map(rates -> String.format("%,.0f", produced ? rates.produced() : rates.consumed()))
                .toList()
                .toString();
    }
}
