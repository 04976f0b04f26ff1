package io.isthmus.client.tools;

/**
 * What the demo measured. {@link #verified()} counts records consumed with the right content exactly once; the demo
 * succeeded when it equals {@link #records()}.
 */
public record DemoResult(
        long records,
        long verified,
        String transport,
        double produceRecordsPerSecond,
        double consumeRecordsPerSecond,
        double produceMegabytesPerSecond,
        double consumeMegabytesPerSecond,
        double heapBytesPerRecord) {
    public boolean success() {
        return verified == records;
    }

    /** The one machine-readable line the demo ends with. */
    public String summaryLine() {
        return String.format(
                java.util.Locale.ROOT,
                "demo: records=%d verified=%d transport=%s produce_rec_s=%.0f consume_rec_s=%.0f"
                        + " heap_bytes_per_record=%.3f",
                records,
                verified,
                transport,
                produceRecordsPerSecond,
                consumeRecordsPerSecond,
                heapBytesPerRecord);
    }
}
