/**
 * What the client knows about the cluster: brokers, topics, partitions and their leaders ({@link
 * io.isthmus.client.cluster.ClusterMetadata}, fetched with Metadata requests), and the connections to those brokers
 * ({@link io.isthmus.client.cluster.BrokerConnections}), and the coordinators of groups and transactional ids ({@link
 * io.isthmus.client.cluster.CoordinatorClient}).
 */
package io.isthmus.client.cluster;
