/**
 * Reading Kafka-style client settings ({@code bootstrap.servers}, {@code linger.ms} ...) from maps or properties,
 * with errors that name the setting and the bad value, and the {@link io.isthmus.client.config.Transport} choice.
 */
package io.isthmus.client.config;
