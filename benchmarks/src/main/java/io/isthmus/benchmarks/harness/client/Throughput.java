package io.isthmus.benchmarks.harness.client;

import java.util.Map;

/** The throughput figures every throughput workload reports, with one definition of a megabyte (10^6 bytes). */
final class Throughput {
    private Throughput() {}

    static void put(final Map<String, Object> result, final long records, final int recordBytes, final long nanos) {
        final double seconds = nanos / 1e9;
        result.put("records", records);
        result.put("record_bytes", recordBytes);
        result.put("seconds", seconds);
        result.put("records_per_s", records / seconds);
        result.put("mb_per_s", records * (double) recordBytes / seconds / 1e6);
    }
}
