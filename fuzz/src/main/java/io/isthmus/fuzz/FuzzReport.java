package io.isthmus.fuzz;

import java.time.Duration;

/**
 * What a fuzz run did and found.
 *
 * @param framesSent frames written to the broker, sync frames included
 * @param framesDelivered frames the broker provably read (their window's sync frame was answered)
 * @param framesMutated frames damaged as a whole after they were built (bodies are damaged inside far more often)
 * @param connections connections the fuzzer opened
 * @param closedByBroker connections the broker closed under the fuzzer (bad input closes a connection)
 * @param unanswered windows whose sync frame got no answer in time (a frame left half-sent, a long poll)
 * @param wellBehaved what the well-behaved client's check found
 * @param brokerAlive whether the broker still answered a fresh connection at the end
 * @param serverErrors requests the broker answered UNKNOWN_SERVER_ERROR, each a bug (-1 for a remote broker)
 * @param peakBufferBytes the most buffer memory (Netty's allocator, direct buffers) the broker's JVM used while the fuzz
 *     ran (-1 for a remote broker)
 * @param elapsed the fuzzing time
 */
public record FuzzReport(
        long framesSent,
        long framesDelivered,
        long framesMutated,
        long connections,
        long closedByBroker,
        long unanswered,
        WellBehavedClient.Outcome wellBehaved,
        boolean brokerAlive,
        long serverErrors,
        long peakBufferBytes,
        Duration elapsed) {

    /** No broker death, no unexpected server error, no acknowledged record lost or duplicated, no producer failure. */
    public boolean passed() {
        return brokerAlive
                && serverErrors <= 0
                && wellBehaved.lost() == 0
                && wellBehaved.duplicated() == 0
                && wellBehaved.firstFailure() == null
                && wellBehaved.acknowledged() > 0;
    }

    public String format() {
        final double seconds = Math.max(1e-3, elapsed.toMillis() / 1000.0);
        return String.format(
                "fuzz: %s%n"
                        + "  frames: %,d sent, %,d delivered (read by the broker, proven by an answered sync frame),"
                        + " %,d mutated whole, in %.1f s (%,.0f frames/s)%n"
                        + "  connections: %,d opened, %,d closed by the broker, %,d windows unanswered in time%n"
                        + "  well-behaved client: %,d records acknowledged, %,d read back, %,d lost, %,d duplicated%s%n"
                        + "  broker: %s; %s unexpected server errors; peak buffer memory %s",
                passed() ? "passed" : "FAILED",
                framesSent,
                framesDelivered,
                framesMutated,
                seconds,
                framesDelivered / seconds,
                connections,
                closedByBroker,
                unanswered,
                wellBehaved.acknowledged(),
                wellBehaved.consumed(),
                wellBehaved.lost(),
                wellBehaved.duplicated(),
                wellBehaved.firstFailure() == null ? "" : " (" + wellBehaved.firstFailure() + ")",
                brokerAlive ? "alive" : "NOT ANSWERING",
                serverErrors < 0 ? "?" : Long.toString(serverErrors),
                peakBufferBytes < 0
                        ? "not measured (remote broker)"
                        : String.format("%.1f MiB", peakBufferBytes / 1048576.0));
    }
}
