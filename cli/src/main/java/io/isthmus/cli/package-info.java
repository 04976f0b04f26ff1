/**
 * Command-line programs on the client library, in the spirit of Kafka's console tools ({@link
 * io.isthmus.cli.ProduceTool}, {@link io.isthmus.cli.ConsumeTool}, {@link io.isthmus.cli.TopicsTool}), and the
 * newcomer's {@link io.isthmus.cli.Demo}: produce, consume and verify a million records, with throughput, latency and
 * heap bytes per consumed record, against any broker or an embedded one ({@link io.isthmus.cli.EmbeddedDemoMain}).
 */
package io.isthmus.cli;
