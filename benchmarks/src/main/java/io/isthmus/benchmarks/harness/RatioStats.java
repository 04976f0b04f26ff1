package io.isthmus.benchmarks.harness;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A figure over the repetitions of a bench case: its median, the range it moved in, and how many repetitions measured
 * it. The median, not the mean: one run disturbed by the machine must not move the figure.
 */
public record RatioStats(double median, double min, double max, int repetitions) {

    /** The stats of {@code values}, or null if there are none. */
    public static RatioStats of(final List<Double> values) {
        if (values.isEmpty()) {
            return null;
        }
        final List<Double> sorted = sorted(values);
        return new RatioStats(middle(sorted), sorted.get(0), sorted.get(sorted.size() - 1), sorted.size());
    }

    /** The median of {@code values} (the mean of the middle two for an even count), or null if there are none. */
    public static Double median(final List<Double> values) {
        if (values.isEmpty()) {
            return null;
        }
        return middle(sorted(values));
    }

    private static List<Double> sorted(final List<Double> values) {
        final List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return sorted;
    }

    /** The median of an ascending, non-empty list. */
    private static double middle(final List<Double> sorted) {
        final int middle = sorted.size() / 2;
        return sorted.size() % 2 == 1 ? sorted.get(middle) : (sorted.get(middle - 1) + sorted.get(middle)) / 2;
    }
}
