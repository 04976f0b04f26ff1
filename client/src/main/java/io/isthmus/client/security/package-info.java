/**
 * How the isthmus clients prove who they are to a broker: Kafka's {@code security.protocol}, {@code sasl.mechanism}
 * and {@code sasl.jaas.config} settings, and the SASL exchange (SaslHandshake, SaslAuthenticate) run on every
 * connection the client opens, the RDMA control connection included, before anything else is asked.
 */
package io.isthmus.client.security;
