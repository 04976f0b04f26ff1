package io.isthmus.metadata.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.isthmus.metadata.image.ClusterImage;
import io.isthmus.metadata.image.PartitionState;
import io.isthmus.metadata.image.TopicImage;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.AllocateProducerIdsRequestData;
import org.apache.kafka.common.message.AllocateProducerIdsResponseData;
import org.apache.kafka.common.message.AlterPartitionResponseData;
import org.apache.kafka.common.message.BrokerHeartbeatRequestData;
import org.apache.kafka.common.message.BrokerHeartbeatResponseData;
import org.apache.kafka.common.message.BrokerRegistrationRequestData;
import org.apache.kafka.common.message.BrokerRegistrationResponseData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableReplicaAssignment;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopic;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class ClusterControllerTest {
    private static final String CLUSTER = "test-cluster";

    private final ControllerFixture cluster = new ControllerFixture(CLUSTER);
    private final ClusterController controller = cluster.controller;

    private CreateTopicsResponseData create(String name, int partitions, int replicationFactor) {
        CreateTopicsRequestData request = new CreateTopicsRequestData();
        request.topics()
                .add(new CreatableTopic()
                        .setName(name)
                        .setNumPartitions(partitions)
                        .setReplicationFactor((short) replicationFactor));
        return (CreateTopicsResponseData) cluster.apply(request);
    }

    private PartitionState partition(String topic, int index) {
        return controller.image().topic(topic).orElseThrow().partition(index);
    }

    @Test
    void aRegisteredBrokerIsFencedUntilItsHeartbeatAsksOtherwiseAndItsEpochIsTheLogIndex() {
        long epoch = cluster.register(1, Uuid.randomUuid());

        assertThat(epoch).isEqualTo(cluster.index());
        assertThat(controller.image().broker(1).orElseThrow().fenced()).isTrue();
        assertThat(controller
                        .image()
                        .broker(1)
                        .orElseThrow()
                        .endpoints()
                        .getFirst()
                        .port())
                .isEqualTo(9001);

        BrokerHeartbeatResponseData answer = cluster.heartbeat(1, false);
        assertThat(answer.isFenced()).isFalse();
        assertThat(controller.image().isActive(1, epoch)).isTrue();
    }

    @Test
    void aBrokerOfAnotherClusterIsRefused() {
        BrokerRegistrationRequestData r =
                cluster.registration(1, Uuid.randomUuid()).setClusterId("other");

        BrokerRegistrationResponseData answer = (BrokerRegistrationResponseData) cluster.apply(r);

        assertThat(Errors.forCode(answer.errorCode())).isEqualTo(Errors.INCONSISTENT_CLUSTER_ID);
        assertThat(controller.image().brokers()).isEmpty();
    }

    @Test
    void aRetriedRegistrationKeepsItsEpochButARestartGetsANewOneAndStartsFenced() {
        Uuid incarnation = Uuid.randomUuid();
        long first = cluster.register(1, incarnation);
        cluster.heartbeat(1, false);

        assertThat(cluster.register(1, incarnation)).isEqualTo(first);
        assertThat(controller.image().broker(1).orElseThrow().fenced()).isFalse();

        long restarted = cluster.register(1, Uuid.randomUuid());
        assertThat(restarted).isGreaterThan(first);
        assertThat(controller.image().broker(1).orElseThrow().fenced()).isTrue();
    }

    @Test
    void aBrokerIsUnfencedOnlyOnceItsMetadataHasReachedItsRegistration() {
        long epoch = cluster.register(1, Uuid.randomUuid());

        BrokerHeartbeatResponseData behind =
                (BrokerHeartbeatResponseData) cluster.apply(new BrokerHeartbeatRequestData()
                        .setBrokerId(1)
                        .setBrokerEpoch(epoch)
                        .setCurrentMetadataOffset(epoch - 1));

        assertThat(behind.isFenced()).isTrue();
        assertThat(behind.isCaughtUp()).isFalse();
        assertThat(controller.image().broker(1).orElseThrow().fenced()).isTrue();
        assertThat(cluster.heartbeat(1, false).isFenced()).isFalse();
    }

    @Test
    void aRequestForMorePartitionsThanOneCommandMayCreateIsRefusedWhole() {
        cluster.activeBrokers(1);
        CreateTopicsRequestData request = new CreateTopicsRequestData();
        request.topics()
                .add(new CreatableTopic()
                        .setName("fits")
                        .setNumPartitions(6_000)
                        .setReplicationFactor((short) 1));
        request.topics()
                .add(new CreatableTopic()
                        .setName("overflows")
                        .setNumPartitions(6_000)
                        .setReplicationFactor((short) 1));
        request.topics()
                .add(new CreatableTopic()
                        .setName("huge")
                        .setNumPartitions(Integer.MAX_VALUE)
                        .setReplicationFactor((short) 1));

        CreateTopicsResponseData answer = (CreateTopicsResponseData) cluster.apply(request);

        assertThat(errorOf(answer, "fits")).isEqualTo(Errors.NONE);
        assertThat(errorOf(answer, "overflows")).isEqualTo(Errors.INVALID_PARTITIONS);
        assertThat(errorOf(answer, "huge")).isEqualTo(Errors.INVALID_PARTITIONS);
        assertThat(answer.topics().find("huge").errorMessage()).contains("10000");
        assertThat(controller.image().topics().keySet()).containsExactly("fits");
    }

    @Test
    void aBrokerThatAskedToShutDownStaysFencedWhateverLateHeartbeatOfItsArrives() {
        cluster.activeBrokers(1);
        BrokerHeartbeatResponseData shutdown =
                (BrokerHeartbeatResponseData) cluster.apply(new BrokerHeartbeatRequestData()
                        .setBrokerId(1)
                        .setBrokerEpoch(cluster.epochs.get(1))
                        .setCurrentMetadataOffset(cluster.index())
                        .setWantShutDown(true));
        assertThat(shutdown.shouldShutDown()).isTrue();

        BrokerHeartbeatResponseData late = cluster.heartbeat(1, false);

        assertThat(late.isFenced()).isTrue();
        assertThat(late.shouldShutDown()).isTrue();
        assertThat(controller.image().broker(1).orElseThrow().fenced()).isTrue();

        cluster.register(1, Uuid.randomUuid());
        assertThat(cluster.heartbeat(1, false).isFenced())
                .as("a new incarnation may lead again")
                .isFalse();
    }

    @Test
    void aRefusalQuotingAHugeRequestStaysShortEnoughForKafkasEncoding() {
        cluster.activeBrokers(1);
        CreateTopicsRequestData request = new CreateTopicsRequestData();
        CreatableTopic topic =
                new CreatableTopic().setName("dupes").setNumPartitions(-1).setReplicationFactor((short) -1);
        topic.assignments()
                .add(new CreatableReplicaAssignment()
                        .setPartitionIndex(0)
                        .setBrokerIds(java.util.Collections.nCopies(11_000, 1)));
        request.topics().add(topic);

        CreateTopicsResponseData answer = (CreateTopicsResponseData) cluster.apply(request);

        assertThat(errorOf(answer, "dupes")).isEqualTo(Errors.INVALID_REPLICA_ASSIGNMENT);
        assertThat(answer.topics().find("dupes").errorMessage()).hasSizeLessThanOrEqualTo(1_003);
        assertThat(io.isthmus.metadata.quorum.MetadataCommands.encode(answer)).isNotEmpty();
    }

    @Test
    void aHeartbeatWithAStaleEpochOrFromAnUnknownBrokerChangesNothing() {
        cluster.activeBrokers(1);
        long epoch = cluster.epochs.get(1);
        ClusterImage before = controller.image();

        BrokerHeartbeatResponseData stale = (BrokerHeartbeatResponseData) cluster.apply(new BrokerHeartbeatRequestData()
                .setBrokerId(1)
                .setBrokerEpoch(epoch - 1)
                .setWantFence(true));
        BrokerHeartbeatResponseData unknown = (BrokerHeartbeatResponseData)
                cluster.apply(new BrokerHeartbeatRequestData().setBrokerId(7).setBrokerEpoch(epoch));

        assertThat(Errors.forCode(stale.errorCode())).isEqualTo(Errors.STALE_BROKER_EPOCH);
        assertThat(Errors.forCode(unknown.errorCode())).isEqualTo(Errors.BROKER_ID_NOT_REGISTERED);
        assertThat(controller.image()).isEqualTo(before);
    }

    @Test
    void aBrokerFencedWhileAwayIsUnfencedOnlyOnceItsMetadataHasReachedItsFence() {
        cluster.activeBrokers(1);
        long epoch = cluster.epochs.get(1);
        long before = cluster.index();
        cluster.heartbeat(1, true);
        long fence = cluster.index();
        assertThat(controller.image().broker(1).orElseThrow().fencedAt()).isEqualTo(fence);

        // Back from a pause with metadata from before its fence: caught up with its registration, not with the fence.
        BrokerHeartbeatResponseData stale = (BrokerHeartbeatResponseData) cluster.apply(new BrokerHeartbeatRequestData()
                .setBrokerId(1)
                .setBrokerEpoch(epoch)
                .setCurrentMetadataOffset(before));
        assertThat(stale.isFenced()).isTrue();
        assertThat(stale.isCaughtUp()).isFalse();

        BrokerHeartbeatResponseData current =
                (BrokerHeartbeatResponseData) cluster.apply(new BrokerHeartbeatRequestData()
                        .setBrokerId(1)
                        .setBrokerEpoch(epoch)
                        .setCurrentMetadataOffset(fence));
        assertThat(current.isFenced()).isFalse();
    }

    @Test
    void producerIdBlocksNeverOverlapAndOnlyARegisteredBrokerUnderItsEpochGetsOne() {
        cluster.activeBrokers(1, 2);
        List<long[]> blocks = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            int broker = 1 + i % 2;
            AllocateProducerIdsResponseData block =
                    (AllocateProducerIdsResponseData) cluster.apply(new AllocateProducerIdsRequestData()
                            .setBrokerId(broker)
                            .setBrokerEpoch(cluster.epochs.get(broker)));
            assertThat(Errors.forCode(block.errorCode())).isEqualTo(Errors.NONE);
            assertThat(block.producerIdLen()).isPositive();
            blocks.add(new long[] {block.producerIdStart(), block.producerIdStart() + block.producerIdLen()});
        }
        for (int i = 0; i < blocks.size(); i++) {
            for (int j = i + 1; j < blocks.size(); j++) {
                assertThat(blocks.get(i)[1] <= blocks.get(j)[0] || blocks.get(j)[1] <= blocks.get(i)[0])
                        .as("blocks %d and %d overlap", i, j)
                        .isTrue();
            }
        }
        ClusterImage before = controller.image();
        AllocateProducerIdsResponseData stale = (AllocateProducerIdsResponseData) cluster.apply(
                new AllocateProducerIdsRequestData().setBrokerId(1).setBrokerEpoch(cluster.epochs.get(1) - 1));
        AllocateProducerIdsResponseData unknown = (AllocateProducerIdsResponseData) cluster.apply(
                new AllocateProducerIdsRequestData().setBrokerId(9).setBrokerEpoch(1));
        assertThat(Errors.forCode(stale.errorCode())).isEqualTo(Errors.STALE_BROKER_EPOCH);
        assertThat(Errors.forCode(unknown.errorCode())).isEqualTo(Errors.BROKER_ID_NOT_REGISTERED);
        assertThat(controller.image()).isEqualTo(before);
    }

    @Test
    void aTopicIsPlacedOnDistinctUnfencedBrokersWithLeadersSpreadAndEveryReplicaInSync() {
        cluster.activeBrokers(1, 2, 3);
        cluster.register(4, Uuid.randomUuid()); // fenced: must get nothing

        CreateTopicsResponseData answer = create("orders", 6, 3);

        assertThat(Errors.forCode(answer.topics().find("orders").errorCode())).isEqualTo(Errors.NONE);
        TopicImage topic = controller.image().topic("orders").orElseThrow();
        assertThat(answer.topics().find("orders").topicId()).isEqualTo(topic.id());
        List<Integer> leaders = new ArrayList<>();
        for (PartitionState p : topic.partitions()) {
            assertThat(p.replicas()).hasSize(3).doesNotHaveDuplicates().allMatch(b -> b >= 1 && b <= 3);
            assertThat(p.isr()).isEqualTo(p.replicas());
            assertThat(p.leader()).isEqualTo(p.replicas().getFirst());
            assertThat(p.leaderEpoch()).isZero();
            leaders.add(p.leader());
        }
        assertThat(leaders).containsOnly(1, 2, 3);
        assertThat(leaders.stream().filter(l -> l == 1)).hasSize(2);
    }

    @Test
    void aTopicIsRefusedWithKafkasErrorsAndNothingChanges() {
        cluster.activeBrokers(1, 2);
        create("exists", 1, 1);
        ClusterImage before = controller.image();

        assertThat(errorOf(create("exists", 1, 1), "exists")).isEqualTo(Errors.TOPIC_ALREADY_EXISTS);
        assertThat(errorOf(create("too-many-replicas", 1, 3), "too-many-replicas"))
                .isEqualTo(Errors.INVALID_REPLICATION_FACTOR);
        assertThat(errorOf(create("bad/name", 1, 1), "bad/name")).isEqualTo(Errors.INVALID_TOPIC_EXCEPTION);
        assertThat(errorOf(create("unsettled", -1, 1), "unsettled")).isEqualTo(Errors.INVALID_PARTITIONS);
        assertThat(controller.image()).isEqualTo(before);
    }

    @Test
    void anExplicitAssignmentIsKeptAndItsFencedReplicasStartOutOfSync() {
        cluster.activeBrokers(1, 2);
        cluster.register(3, Uuid.randomUuid());
        CreateTopicsRequestData request = new CreateTopicsRequestData();
        CreatableTopic topic =
                new CreatableTopic().setName("pinned").setNumPartitions(-1).setReplicationFactor((short) -1);
        topic.assignments()
                .add(new CreatableReplicaAssignment().setPartitionIndex(0).setBrokerIds(List.of(3, 2, 1)));
        request.topics().add(topic);

        cluster.apply(request);

        PartitionState p = partition("pinned", 0);
        assertThat(p.replicas()).containsExactly(3, 2, 1);
        assertThat(p.isr()).containsExactly(2, 1);
        assertThat(p.leader()).isEqualTo(2);

        CreateTopicsRequestData unknownBroker = new CreateTopicsRequestData();
        CreatableTopic bad =
                new CreatableTopic().setName("bad").setNumPartitions(-1).setReplicationFactor((short) -1);
        bad.assignments()
                .add(new CreatableReplicaAssignment().setPartitionIndex(0).setBrokerIds(List.of(1, 9)));
        unknownBroker.topics().add(bad);
        assertThat(errorOf((CreateTopicsResponseData) cluster.apply(unknownBroker), "bad"))
                .isEqualTo(Errors.INVALID_REPLICA_ASSIGNMENT);
    }

    @Test
    void fencingTheLeaderElectsTheNextInSyncReplicaAndBumpsBothEpochs() {
        cluster.activeBrokers(1, 2, 3);
        create("t", 1, 3);
        PartitionState before = partition("t", 0);
        int oldLeader = before.leader();

        cluster.heartbeat(oldLeader, true);

        PartitionState after = partition("t", 0);
        assertThat(after.leader()).isNotEqualTo(oldLeader).isIn(before.replicas());
        assertThat(after.leader())
                .isEqualTo(before.replicas().stream()
                        .filter(b -> b != oldLeader)
                        .findFirst()
                        .orElseThrow());
        assertThat(after.isr()).doesNotContain(oldLeader).hasSize(2);
        assertThat(after.leaderEpoch()).isEqualTo(before.leaderEpoch() + 1);
        assertThat(after.partitionEpoch()).isEqualTo(before.partitionEpoch() + 1);
    }

    @Test
    void fencingAFollowerShrinksTheIsrButKeepsTheLeaderAndItsEpoch() {
        cluster.activeBrokers(1, 2, 3);
        create("t", 1, 3);
        PartitionState before = partition("t", 0);
        int follower = before.replicas().get(2);

        cluster.heartbeat(follower, true);

        PartitionState after = partition("t", 0);
        assertThat(after.leader()).isEqualTo(before.leader());
        assertThat(after.leaderEpoch()).isEqualTo(before.leaderEpoch());
        assertThat(after.partitionEpoch()).isEqualTo(before.partitionEpoch() + 1);
        assertThat(after.isr()).doesNotContain(follower);
    }

    @Test
    void theLastInSyncReplicaStaysTheIsrWithNoLeaderAndOnlyItCanLeadAgain() {
        cluster.activeBrokers(1, 2);
        create("t", 1, 2);
        int leader = partition("t", 0).leader();
        int follower = partition("t", 0).replicas().stream()
                .filter(b -> b != leader)
                .findFirst()
                .orElseThrow();

        cluster.heartbeat(follower, true);
        cluster.heartbeat(leader, true);

        PartitionState leaderless = partition("t", 0);
        assertThat(leaderless.hasLeader()).isFalse();
        assertThat(leaderless.isr()).containsExactly(leader);

        cluster.heartbeat(follower, false); // out of sync: must not lead (no unclean election)
        assertThat(partition("t", 0).hasLeader()).isFalse();

        cluster.heartbeat(leader, false);
        PartitionState back = partition("t", 0);
        assertThat(back.leader()).isEqualTo(leader);
        assertThat(back.leaderEpoch()).isEqualTo(leaderless.leaderEpoch() + 1);
    }

    @Test
    void aRestartedBrokerLosesItsLeadershipsAtRegistration() {
        cluster.activeBrokers(1, 2, 3);
        create("t", 3, 3);

        cluster.register(1, Uuid.randomUuid());

        for (PartitionState p : controller.image().topic("t").orElseThrow().partitions()) {
            assertThat(p.leader()).isNotEqualTo(1);
            assertThat(p.isr()).doesNotContain(1);
        }
    }

    private AlterPartitionResponseData.PartitionData alterIsr(
            String topic, int broker, int leaderEpoch, int partitionEpoch, List<Integer> isr) {
        return cluster.alterIsr(topic, 0, broker, leaderEpoch, partitionEpoch, isr);
    }

    @Test
    void theLeaderShrinksAndExpandsItsIsrAgainstTheEpochsItBuiltOn() {
        cluster.activeBrokers(1, 2, 3);
        create("t", 1, 3);
        PartitionState p = partition("t", 0);
        int leader = p.leader();
        List<Integer> withoutLast = p.replicas().subList(0, 2);

        AlterPartitionResponseData.PartitionData shrunk =
                alterIsr("t", leader, p.leaderEpoch(), p.partitionEpoch(), withoutLast);
        assertThat(Errors.forCode(shrunk.errorCode())).isEqualTo(Errors.NONE);
        assertThat(shrunk.isr()).isEqualTo(withoutLast);
        assertThat(shrunk.partitionEpoch()).isEqualTo(p.partitionEpoch() + 1);

        // Built on the old partition epoch: refused.
        assertThat(Errors.forCode(alterIsr("t", leader, p.leaderEpoch(), p.partitionEpoch(), p.replicas())
                        .errorCode()))
                .isEqualTo(Errors.INVALID_UPDATE_VERSION);
        // From a follower: refused.
        assertThat(Errors.forCode(
                        alterIsr("t", withoutLast.get(1), p.leaderEpoch(), shrunk.partitionEpoch(), p.replicas())
                                .errorCode()))
                .isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER);
        // With a stale leader epoch: refused.
        assertThat(Errors.forCode(alterIsr("t", leader, p.leaderEpoch() - 1, shrunk.partitionEpoch(), p.replicas())
                        .errorCode()))
                .isEqualTo(Errors.FENCED_LEADER_EPOCH);

        AlterPartitionResponseData.PartitionData expanded =
                alterIsr("t", leader, p.leaderEpoch(), shrunk.partitionEpoch(), p.replicas());
        assertThat(Errors.forCode(expanded.errorCode())).isEqualTo(Errors.NONE);
        assertThat(partition("t", 0).isr()).isEqualTo(p.replicas());
    }

    @Test
    void aFencedBrokerCannotBeAddedToAnIsr() {
        cluster.activeBrokers(1, 2, 3);
        create("t", 1, 3);
        PartitionState p = partition("t", 0);
        int follower = p.replicas().get(2);
        cluster.heartbeat(follower, true);
        PartitionState shrunk = partition("t", 0);

        AlterPartitionResponseData.PartitionData answer =
                alterIsr("t", shrunk.leader(), shrunk.leaderEpoch(), shrunk.partitionEpoch(), p.replicas());

        assertThat(Errors.forCode(answer.errorCode())).isEqualTo(Errors.INELIGIBLE_REPLICA);
        assertThat(partition("t", 0)).isEqualTo(shrunk);
    }

    @Test
    void aTopicIsDeletedByNameOrIdAndAnUnknownOneIsReported() {
        cluster.activeBrokers(1);
        create("a", 1, 1);
        create("b", 1, 1);
        Uuid b = controller.image().topic("b").orElseThrow().id();
        DeleteTopicsRequestData request = new DeleteTopicsRequestData();
        request.topics().add(new DeleteTopicsRequestData.DeleteTopicState().setName("a"));
        request.topics().add(new DeleteTopicsRequestData.DeleteTopicState().setTopicId(b));
        request.topics().add(new DeleteTopicsRequestData.DeleteTopicState().setName("missing"));

        DeleteTopicsResponseData answer = (DeleteTopicsResponseData) cluster.apply(request);

        assertThat(controller.image().topics()).isEmpty();
        assertThat(answer.responses().find("missing").errorCode()).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        assertThat(answer.responses().find("b").errorCode()).isZero();
    }

    @Test
    void twoControllersFedTheSameLogHoldEqualImagesWithEqualTopicIds() {
        List<ApiMessage> log = new ArrayList<>();
        for (int id = 1; id <= 3; id++) {
            log.add(cluster.registration(id, new Uuid(7, id)));
        }
        ClusterController first = new ClusterController(CLUSTER);
        ClusterController second = new ClusterController(CLUSTER);
        for (int i = 0; i < log.size(); i++) {
            first.apply(i + 1, log.get(i));
            second.apply(i + 1, log.get(i));
        }
        for (int id = 1; id <= 3; id++) {
            ApiMessage unfence = new BrokerHeartbeatRequestData()
                    .setBrokerId(id)
                    .setBrokerEpoch(id)
                    .setCurrentMetadataOffset(id);
            first.apply(3 + id, unfence);
            second.apply(3 + id, unfence);
        }
        CreateTopicsRequestData create = new CreateTopicsRequestData();
        create.topics()
                .add(new CreatableTopic().setName("t").setNumPartitions(8).setReplicationFactor((short) 2));
        first.apply(7, create);
        second.apply(7, create);

        assertThat(first.image()).isEqualTo(second.image());
        assertThat(first.image().topic("t").orElseThrow().id())
                .isEqualTo(second.image().topic("t").orElseThrow().id());
    }

    @Test
    void aCommandOutOfLogOrderOrOfAnotherKindIsRefused() {
        controller.apply(5, cluster.registration(1, Uuid.randomUuid()));

        assertThatThrownBy(() -> controller.apply(5, cluster.registration(2, Uuid.randomUuid())))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("index 5");
        assertThatThrownBy(() -> controller.apply(6, new DescribeClusterRequestData()))
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("DescribeClusterRequestData");
    }

    private static Errors errorOf(CreateTopicsResponseData answer, String topic) {
        return Errors.forCode(answer.topics().find(topic).errorCode());
    }
}
