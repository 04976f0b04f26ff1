package io.isthmus.benchmarks.harness;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/** The report's PNG charts (XChart, headless). Each returns the file name it wrote, or null when it had no data. */
final class Plots {
    private static final int WIDTH = 960;
    private static final int HEIGHT = 600;

    private Plots() {}

    /** Produce (acks=1) and consume throughput against record size, one partition, per client and broker. */
    static String throughputVsRecordSize(final List<CaseOutcome> outcomes, final Path dir) throws IOException {
        final XYChart chart = chart(
                "Throughput against record size (1 partition, produce acks=1)",
                "record value size (bytes, log scale)",
                "throughput (MB/s, 10^6 bytes)");
        chart.getStyler().setXAxisLogarithmic(true);
        int series = 0;
        for (final String group : List.of(BenchPlan.PRODUCE, BenchPlan.CONSUME)) {
            for (final Pairing pairing : Pairing.ALL) {
                final List<Double> xs = new ArrayList<>();
                final List<Double> ys = new ArrayList<>();
                for (final CaseOutcome outcome : outcomes) {
                    final BenchCase c = outcome.benchCase();
                    if (!c.group().equals(group) || c.intParam("partitions") != 1) {
                        continue;
                    }
                    if (group.equals(BenchPlan.PRODUCE)
                            && !"1".equals(c.params().get("acks"))) {
                        continue;
                    }
                    final Double mb = outcome.figure(pairing, "mb_per_s");
                    if (mb != null) {
                        xs.add((double) c.intParam("record_bytes"));
                        ys.add(mb);
                    }
                }
                if (!xs.isEmpty()) {
                    chart.addSeries(group + ": " + pairing.title(), xs, ys).setMarker(SeriesMarkers.CIRCLE);
                    series++;
                }
            }
        }
        return series == 0 ? null : save(chart, dir, "throughput_vs_record_size");
    }

    /** Latency CDFs of one group (produce latency or end-to-end), one series per client and broker and case. */
    static String latencyCdf(final List<CaseOutcome> outcomes, final String group, final String title, final Path dir)
            throws IOException {
        final XYChart chart = chart(title, "latency (µs, log scale)", "percentile (%)");
        chart.getStyler().setXAxisLogarithmic(true);
        chart.getStyler().setYAxisMin(0.0).setYAxisMax(100.0);
        chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideSE);
        int series = 0;
        for (final CaseOutcome outcome : outcomes) {
            if (!outcome.benchCase().group().equals(group)) {
                continue;
            }
            for (final Pairing pairing : outcome.results().keySet()) {
                if (!(outcome.of(pairing).get("cdf") instanceof List<?> cdf) || cdf.isEmpty()) {
                    continue;
                }
                final List<Double> xs = new ArrayList<>();
                final List<Double> ys = new ArrayList<>();
                for (final Object point : cdf) {
                    final List<?> pair = (List<?>) point;
                    final double micros = ((Number) pair.get(1)).doubleValue();
                    xs.add(Math.max(micros, 1.0));
                    ys.add(((Number) pair.get(0)).doubleValue());
                }
                chart.addSeries(pairing.title() + ", " + seriesLabel(outcome.benchCase()), xs, ys)
                        .setMarker(SeriesMarkers.NONE);
                series++;
            }
        }
        return series == 0 ? null : save(chart, dir, group.replace('-', '_') + "_cdf");
    }

    /** Fan-out: aggregate consume throughput against consumer count, per client and broker. */
    static String fanOutScaling(final List<CaseOutcome> outcomes, final Path dir) throws IOException {
        final XYChart chart = chart(
                "Fan-out: 1 producer, N consumers (1 KiB records, 1 partition)",
                "consumers",
                "aggregate consume throughput (MB/s, 10^6 bytes)");
        int series = 0;
        for (final Pairing pairing : Pairing.ALL) {
            final List<Double> xs = new ArrayList<>();
            final List<Double> ys = new ArrayList<>();
            for (final CaseOutcome outcome : outcomes) {
                if (!outcome.benchCase().group().equals(BenchPlan.FAN_OUT)) {
                    continue;
                }
                final Double mb = outcome.figure(pairing, "aggregate_mb_per_s");
                if (mb != null) {
                    xs.add((double) outcome.benchCase().intParam("consumers"));
                    ys.add(mb);
                }
            }
            if (!xs.isEmpty()) {
                chart.addSeries(pairing.title(), xs, ys).setMarker(SeriesMarkers.CIRCLE);
                series++;
            }
        }
        return series == 0 ? null : save(chart, dir, "fan_out_scaling");
    }

    /** What distinguishes one case of a latency group from another: acks or offered rate. */
    private static String seriesLabel(final BenchCase benchCase) {
        if (benchCase.params().containsKey("rate_per_s")) {
            return benchCase.params().get("rate_per_s") + " records/s offered";
        }
        return "acks=" + benchCase.params().get("acks");
    }

    private static XYChart chart(final String title, final String xTitle, final String yTitle) {
        final XYChart chart = new XYChartBuilder()
                .width(WIDTH)
                .height(HEIGHT)
                .title(title)
                .xAxisTitle(xTitle)
                .yAxisTitle(yTitle)
                .build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
        chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
        chart.getStyler().setPlotGridLinesVisible(true);
        return chart;
    }

    private static String save(final XYChart chart, final Path dir, final String name) throws IOException {
        BitmapEncoder.saveBitmap(chart, dir.resolve(name).toString(), BitmapEncoder.BitmapFormat.PNG);
        return name + ".png";
    }

    /** For results.json: which plot shows what. */
    static Map<String, String> describe() {
        return Map.of(
                "throughput_vs_record_size.png", "produce (acks=1) and consume MB/s against record size, 1 partition",
                "produce_latency_cdf.png", "unbatched produce latency CDF",
                "e2e_latency_cdf.png", "end-to-end latency CDF at fixed offered rates",
                "fan_out_scaling.png", "aggregate consume MB/s against consumer count");
    }
}
