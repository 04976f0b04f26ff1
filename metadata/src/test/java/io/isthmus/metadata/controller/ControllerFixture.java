package io.isthmus.metadata.controller;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.AlterPartitionRequestData;
import org.apache.kafka.common.message.AlterPartitionResponseData;
import org.apache.kafka.common.message.BrokerHeartbeatRequestData;
import org.apache.kafka.common.message.BrokerHeartbeatResponseData;
import org.apache.kafka.common.message.BrokerRegistrationRequestData;
import org.apache.kafka.common.message.BrokerRegistrationResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * A controller fed commands at consecutive log indexes, as the quorum would, with the requests the controller tests
 * send over and over: registering brokers, their heartbeats, a leader's ISR change.
 */
final class ControllerFixture {
    final String clusterId;
    final ClusterController controller;
    /** Each registered broker's epoch, as its registration was answered. */
    final Map<Integer, Long> epochs = new HashMap<>();

    private long index;

    ControllerFixture(String clusterId) {
        this.clusterId = clusterId;
        this.controller = new ClusterController(clusterId);
    }

    /** The log index of the last command applied. */
    long index() {
        return index;
    }

    ApiMessage apply(ApiMessage command) {
        return controller.apply(++index, command);
    }

    BrokerRegistrationRequestData registration(int broker, Uuid incarnation) {
        BrokerRegistrationRequestData r = new BrokerRegistrationRequestData()
                .setBrokerId(broker)
                .setClusterId(clusterId)
                .setIncarnationId(incarnation)
                .setRack("rack-" + broker);
        r.listeners()
                .add(new BrokerRegistrationRequestData.Listener()
                        .setName("PLAINTEXT")
                        .setHost("127.0.0.1")
                        .setPort(9000 + broker)
                        .setSecurityProtocol((short) 0));
        return r;
    }

    /** Registers a broker, which must be accepted, and returns its epoch. */
    long register(int broker, Uuid incarnation) {
        BrokerRegistrationResponseData answer =
                (BrokerRegistrationResponseData) apply(registration(broker, incarnation));
        assertThat(Errors.forCode(answer.errorCode())).isEqualTo(Errors.NONE);
        epochs.put(broker, answer.brokerEpoch());
        return answer.brokerEpoch();
    }

    /** A heartbeat of a broker whose metadata is up to date. */
    BrokerHeartbeatResponseData heartbeat(int broker, boolean wantFence) {
        return (BrokerHeartbeatResponseData) apply(new BrokerHeartbeatRequestData()
                .setBrokerId(broker)
                .setBrokerEpoch(epochs.get(broker))
                .setCurrentMetadataOffset(index)
                .setWantFence(wantFence));
    }

    /** Registers and unfences each broker. */
    void activeBrokers(int... ids) {
        for (int id : ids) {
            register(id, Uuid.randomUuid());
            assertThat(heartbeat(id, false).isFenced()).isFalse();
        }
    }

    /** {@code broker}'s AlterPartition for one partition, naming each ISR member with its current broker epoch. */
    AlterPartitionResponseData.PartitionData alterIsr(
            String topic, int partition, int broker, int leaderEpoch, int partitionEpoch, List<Integer> isr) {
        AlterPartitionRequestData request =
                new AlterPartitionRequestData().setBrokerId(broker).setBrokerEpoch(epochs.get(broker));
        AlterPartitionRequestData.PartitionData p = new AlterPartitionRequestData.PartitionData()
                .setPartitionIndex(partition)
                .setLeaderEpoch(leaderEpoch)
                .setPartitionEpoch(partitionEpoch);
        for (int id : isr) {
            p.newIsrWithEpochs()
                    .add(new AlterPartitionRequestData.BrokerState()
                            .setBrokerId(id)
                            .setBrokerEpoch(epochs.get(id)));
        }
        request.topics()
                .add(new AlterPartitionRequestData.TopicData()
                        .setTopicId(
                                controller.image().topic(topic).orElseThrow().id())
                        .setPartitions(List.of(p)));
        AlterPartitionResponseData answer = (AlterPartitionResponseData) apply(request);
        return answer.topics().getFirst().partitions().getFirst();
    }
}
