package io.isthmus.metadata.broker;

import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.BrokerHeartbeatRequestData;
import org.apache.kafka.common.message.BrokerHeartbeatResponseData;
import org.apache.kafka.common.message.BrokerRegistrationRequestData;
import org.apache.kafka.common.message.BrokerRegistrationResponseData;

/**
 * How a broker reaches the metadata quorum's leader: the two requests of its lifecycle. A broker that is also a
 * voter uses its own {@link io.isthmus.metadata.quorum.MetadataQuorum}.
 */
public interface ControllerChannel {
    CompletableFuture<BrokerRegistrationResponseData> registerBroker(BrokerRegistrationRequestData request);

    CompletableFuture<BrokerHeartbeatResponseData> heartbeat(BrokerHeartbeatRequestData request);
}
