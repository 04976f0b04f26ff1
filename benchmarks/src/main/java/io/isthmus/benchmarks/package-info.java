/**
 * Entry points of the benchmarks module: {@link io.isthmus.benchmarks.BenchMain} (isthmus against Apache Kafka, side
 * by side, with a report and plots) and {@link io.isthmus.benchmarks.JmhMain} (the JMH microbenchmarks).
 */
package io.isthmus.benchmarks;
