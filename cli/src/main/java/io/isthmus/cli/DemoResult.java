package io.isthmus.cli;

/**
 * What the demo measured. {@link #verified()} counts records consumed with the right content exactly once, {@link
 * #failed()} records whose send the producer reported as failed (after its retries), with the {@link #firstError()};
 * the demo succeeded when every record was verified and none failed. {@link #transport()} is the datapath the consumer
 * took, {@link #produceTransport()} the producer's.
 */
public record DemoResult(
        long records,
        long verified,
        long failed,
        String firstError,
        String transport,
        String produceTransport,
        double produceRecordsPerSecond,
        double consumeRecordsPerSecond,
        double produceMegabytesPerSecond,
        double consumeMegabytesPerSecond,
        double heapBytesPerRecord) {
    public boolean success() {
        return verified == records && failed == 0;
    }

    /** The one machine-readable line the demo ends with. */
    public String summaryLine() {
        return String.format(
                java.util.Locale.ROOT,
                "demo: records=%d verified=%d failed=%d transport=%s produce_transport=%s produce_rec_s=%.0f"
                        + " consume_rec_s=%.0f heap_bytes_per_record=%.3f",
                records,
                verified,
                failed,
                transport,
                produceTransport,
                produceRecordsPerSecond,
                consumeRecordsPerSecond,
                heapBytesPerRecord);
    }
}
