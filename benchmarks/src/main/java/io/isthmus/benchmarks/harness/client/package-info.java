/**
 * The client side of the harness: one workload per JVM ({@link io.isthmus.benchmarks.harness.client.ClientRunnerMain}),
 * written against {@link io.isthmus.benchmarks.harness.client.ProducerClient} and {@link
 * io.isthmus.benchmarks.harness.client.ConsumerClient} so that the isthmus client plugs in next to kafka-clients.
 */
package io.isthmus.benchmarks.harness.client;
