/**
 * Kafka wire protocol over TCP on the client side: {@link io.isthmus.client.network.KafkaConnection} frames requests
 * with kafka-clients' generated message classes, negotiates API versions, pipelines requests (responses come back in
 * order) and reads every response frame into a pooled off-heap {@link io.isthmus.client.network.ReceiveBuffer}, so
 * that record bytes in fetch responses can be handed to applications in place.
 */
package io.isthmus.client.network;
