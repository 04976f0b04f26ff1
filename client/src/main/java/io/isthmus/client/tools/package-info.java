/**
 * Command-line tools in the spirit of Kafka's console tools ({@link io.isthmus.client.tools.ProduceTool}, {@link
 * io.isthmus.client.tools.ConsumeTool}, {@link io.isthmus.client.tools.TopicsTool}) and the newcomer's {@link
 * io.isthmus.client.tools.Demo}: produce, consume and verify a million records, with throughput, latency and heap
 * bytes per consumed record.
 */
package io.isthmus.client.tools;
