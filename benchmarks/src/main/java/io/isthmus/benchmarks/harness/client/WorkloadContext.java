package io.isthmus.benchmarks.harness.client;

import java.time.Duration;
import java.time.Instant;

/**
 * What a workload is given: the client library, the settings, its sizes, and the phase markers. The harness samples
 * the broker's CPU time when it reads {@value #PHASE_BEGIN} and {@value #PHASE_END}, so that the broker's CPU is
 * measured over exactly the measured part of a workload (not the client JVM's start, not the warmup).
 *
 * @param records records to send or expect (workload-specific meaning)
 * @param recordBytes value size of every record
 * @param consumers consumer count (fan-out, idle fetch)
 * @param ratePerSecond offered rate (end-to-end latency)
 * @param durationSeconds measured duration (end-to-end latency, idle fetch)
 * @param warmup how long a throughput workload warms up at least before its clock starts ({@link Workload#WARMUP};
 *     zero for a preload, which must write exactly what it is asked to plus one round)
 * @param deadline the workload fails when it has not finished by then
 */
public record WorkloadContext(
        ClientLibrary library,
        ClientSettings settings,
        long records,
        int recordBytes,
        int consumers,
        int ratePerSecond,
        double durationSeconds,
        Duration warmup,
        Instant deadline) {

    public static final String PHASE_BEGIN = "phase begin";
    public static final String PHASE_END = "phase end";

    public void beginPhase() {
        System.out.println(PHASE_BEGIN);
        System.out.flush();
    }

    public void endPhase() {
        System.out.println(PHASE_END);
        System.out.flush();
    }

    /** Throws when the workload's deadline has passed, naming what it was waiting for. */
    public void checkDeadline(final String waitingFor) {
        if (Instant.now().isAfter(deadline)) {
            throw new IllegalStateException("workload deadline passed while waiting for " + waitingFor);
        }
    }

    public Duration remaining() {
        return Duration.between(Instant.now(), deadline);
    }

    /** A value of {@code recordBytes} bytes with varied content (no compression is configured anyway). */
    public byte[] value() {
        final byte[] value = new byte[recordBytes];
        for (int i = 0; i < value.length; i++) {
            value[i] = (byte) (i * 31 + 7);
        }
        return value;
    }
}
