/**
 * The side-by-side harness: brokers in child JVMs ({@link io.isthmus.benchmarks.harness.BrokerUnderTest}), the plan of
 * cases, per-case runs with CPU sampled on the client's phase markers, physical limits, the Markdown report and plots.
 */
package io.isthmus.benchmarks.harness;
