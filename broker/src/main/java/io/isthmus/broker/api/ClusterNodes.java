package io.isthmus.broker.api;

import io.isthmus.broker.config.Endpoint;
import java.util.List;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseBroker;

/** The cluster's id, its controller and the brokers clients may reach: what Metadata and DescribeCluster share. */
public interface ClusterNodes {
    String clusterId();

    /** The controller's broker id, or -1 when none is known. */
    int controllerId();

    /** The brokers clients may reach over {@code listenerName}. */
    List<MetadataResponseBroker> brokers(String listenerName);

    /** A single broker: the whole cluster and its controller. */
    static ClusterNodes of(final BrokerNode node) {
        return new ClusterNodes() {
            @Override
            public String clusterId() {
                return node.clusterId();
            }

            @Override
            public int controllerId() {
                return node.nodeId();
            }

            @Override
            public List<MetadataResponseBroker> brokers(final String listenerName) {
                final Endpoint endpoint = node.endpointFor(listenerName);
                return List.of(new MetadataResponseBroker()
                        .setNodeId(node.nodeId())
                        .setHost(endpoint.host())
                        .setPort(endpoint.port()));
            }
        };
    }
}
