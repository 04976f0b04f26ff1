package io.isthmus.benchmarks.harness.client;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/** Latencies in nanoseconds (3 significant digits, up to one minute), reported in microseconds with a CDF. */
public final class LatencyRecorder {
    /** Percentiles at which the CDF is sampled: dense in the tail, where the brokers differ. */
    private static final double[] CDF_PERCENTILES = {
        0, 1, 5, 10, 20, 30, 40, 50, 60, 70, 75, 80, 85, 90, 92.5, 95, 96, 97, 98, 99, 99.5, 99.75, 99.9, 99.95, 99.99,
        100
    };

    private final Histogram histogram = new Histogram(60_000_000_000L, 3);

    public void record(final long nanos) {
        histogram.recordValue(Math.max(0, Math.min(nanos, histogram.getHighestTrackableValue())));
    }

    public long count() {
        return histogram.getTotalCount();
    }

    /** {@code p50_us}, {@code p99_us}, {@code p999_us}, {@code max_us}, {@code mean_us}, and {@code cdf}. */
    public Map<String, Object> summary() {
        final Map<String, Object> map = new LinkedHashMap<>();
        map.put("samples", histogram.getTotalCount());
        map.put("p50_us", micros(histogram.getValueAtPercentile(50)));
        map.put("p90_us", micros(histogram.getValueAtPercentile(90)));
        map.put("p99_us", micros(histogram.getValueAtPercentile(99)));
        map.put("p999_us", micros(histogram.getValueAtPercentile(99.9)));
        map.put("max_us", micros(histogram.getMaxValue()));
        map.put("mean_us", histogram.getMean() / 1000.0);
        final List<List<Double>> cdf = new ArrayList<>();
        for (final double percentile : CDF_PERCENTILES) {
            cdf.add(List.of(percentile, micros(histogram.getValueAtPercentile(percentile))));
        }
        map.put("cdf", cdf);
        return map;
    }

    private static double micros(final long nanos) {
        return nanos / 1000.0;
    }
}
