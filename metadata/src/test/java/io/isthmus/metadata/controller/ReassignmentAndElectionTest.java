package io.isthmus.metadata.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.isthmus.metadata.image.ClusterImage;
import io.isthmus.metadata.image.PartitionState;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData.ReassignablePartition;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData.ReassignableTopic;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData;
import org.apache.kafka.common.message.BrokerHeartbeatRequestData;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsRequestData.CreatePartitionsAssignment;
import org.apache.kafka.common.message.CreatePartitionsRequestData.CreatePartitionsTopic;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableReplicaAssignment;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopic;
import org.apache.kafka.common.message.ElectLeadersRequestData;
import org.apache.kafka.common.message.ElectLeadersResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Adding partitions, moving replicas (KIP-455) and preferred-leader election, on a four-broker image. */
class ReassignmentAndElectionTest {
    private static final String CLUSTER = "c";

    private final ControllerFixture cluster = new ControllerFixture(CLUSTER);
    private final ClusterController controller = cluster.controller;

    @BeforeEach
    void fourBrokersAndATopicOnTheFirstThree() {
        cluster.activeBrokers(1, 2, 3, 4);
        CreateTopicsRequestData create = new CreateTopicsRequestData();
        CreatableTopic topic =
                new CreatableTopic().setName("t").setNumPartitions(-1).setReplicationFactor((short) -1);
        topic.assignments()
                .add(new CreatableReplicaAssignment().setPartitionIndex(0).setBrokerIds(List.of(1, 2, 3)));
        create.topics().add(topic);
        cluster.apply(create);
    }

    private PartitionState partition(int p) {
        return controller.image().topic("t").orElseThrow().partition(p);
    }

    private Errors reassign(List<Integer> replicas, boolean allowReplicationFactorChange) {
        AlterPartitionReassignmentsRequestData request = new AlterPartitionReassignmentsRequestData()
                .setAllowReplicationFactorChange(allowReplicationFactorChange);
        request.topics()
                .add(new ReassignableTopic()
                        .setName("t")
                        .setPartitions(List.of(
                                new ReassignablePartition().setPartitionIndex(0).setReplicas(replicas))));
        AlterPartitionReassignmentsResponseData answer =
                (AlterPartitionReassignmentsResponseData) cluster.apply(request);
        return Errors.forCode(
                answer.responses().getFirst().partitions().getFirst().errorCode());
    }

    private Errors leaderSetsIsr(List<Integer> isr) {
        PartitionState p = partition(0);
        return Errors.forCode(cluster.alterIsr("t", 0, p.leader(), p.leaderEpoch(), p.partitionEpoch(), isr)
                .errorCode());
    }

    @Test
    void aMoveAddsTheNewReplicaFirstAndDropsTheOldOneOnlyOnceTheNewOneIsInSync() {
        assertThat(reassign(List.of(4, 2, 3), true)).isEqualTo(Errors.NONE);

        PartitionState moving = partition(0);
        assertThat(moving.replicas()).containsExactly(4, 2, 3, 1);
        assertThat(moving.addingReplicas()).containsExactly(4);
        assertThat(moving.removingReplicas()).containsExactly(1);
        assertThat(moving.isr()).containsExactly(1, 2, 3);
        assertThat(moving.leader()).isEqualTo(1);

        // The leader brings broker 4 into sync: the move completes and broker 1 hands over.
        assertThat(leaderSetsIsr(List.of(1, 2, 3, 4))).isEqualTo(Errors.NONE);

        PartitionState moved = partition(0);
        assertThat(moved.isReassigning()).isFalse();
        assertThat(moved.replicas()).containsExactly(4, 2, 3);
        assertThat(moved.isr()).containsExactlyInAnyOrder(2, 3, 4);
        assertThat(moved.leader()).isEqualTo(4);
        assertThat(moved.leaderEpoch()).isEqualTo(moving.leaderEpoch() + 1);
    }

    @Test
    void aMoveWithinTheIsrCompletesAtOnceAndACancelReturnsToTheOriginalReplicas() {
        assertThat(reassign(List.of(2, 3), true)).isEqualTo(Errors.NONE);
        assertThat(partition(0).replicas()).containsExactly(2, 3);
        assertThat(partition(0).leader()).isEqualTo(2);

        assertThat(reassign(List.of(2, 3, 4), true)).isEqualTo(Errors.NONE);
        assertThat(partition(0).addingReplicas()).containsExactly(4);
        assertThat(cancel()).isEqualTo(Errors.NONE);
        assertThat(partition(0).isReassigning()).isFalse();
        assertThat(partition(0).replicas()).containsExactly(2, 3);

        assertThat(cancel()).isEqualTo(Errors.NO_REASSIGNMENT_IN_PROGRESS);
    }

    private Errors cancel() {
        return reassign(null, true);
    }

    @Test
    void aMoveThatDropsAReplicaBumpsTheLeaderEpochEvenWhenTheLeaderStays() {
        int before = partition(0).leaderEpoch();

        assertThat(reassign(List.of(1, 2), true)).isEqualTo(Errors.NONE);

        assertThat(partition(0).replicas()).containsExactly(1, 2);
        assertThat(partition(0).leader()).isEqualTo(1);
        assertThat(partition(0).leaderEpoch()).isEqualTo(before + 1);
    }

    @Test
    void cancellingAMoveWhoseOriginalReplicasAreAllOutOfSyncIsRefusedAndChangesNothing() {
        assertThat(reassign(List.of(1, 2), true)).isEqualTo(Errors.NONE);
        // [1,2] towards [3,4]: broker 3 catches up, broker 4 not yet; then 1 and 2 are fenced, so the ISR is [3].
        assertThat(reassign(List.of(3, 4), true)).isEqualTo(Errors.NONE);
        assertThat(leaderSetsIsr(List.of(1, 2, 3))).isEqualTo(Errors.NONE);
        for (int id = 1; id <= 2; id++) {
            cluster.apply(new BrokerHeartbeatRequestData()
                    .setBrokerId(id)
                    .setBrokerEpoch(cluster.epochs.get(id))
                    .setWantFence(true));
        }
        assertThat(partition(0).isr()).containsExactly(3);
        assertThat(partition(0).leader()).isEqualTo(3);
        ClusterImage before = controller.image();

        // Back to [1,2] would keep no in-sync replica: refused (it would have stopped every voter before).
        assertThat(cancel()).isEqualTo(Errors.INVALID_REPLICA_ASSIGNMENT);

        assertThat(controller.image()).isEqualTo(before);
        assertThat(leaderSetsIsr(List.of(3, 4))).isEqualTo(Errors.NONE);
        assertThat(partition(0).replicas()).containsExactly(3, 4);
        assertThat(partition(0).isReassigning()).isFalse();
    }

    @Test
    void aCommandThatFailsMidwayChangesNothingOnAnyPartitionItReached() {
        ClusterImage before = controller.image();
        AlterPartitionReassignmentsRequestData request = new AlterPartitionReassignmentsRequestData();
        request.topics()
                .add(new ReassignableTopic()
                        .setName("t")
                        .setPartitions(List.of(
                                new ReassignablePartition().setPartitionIndex(0).setReplicas(List.of(4, 2, 3)))));
        // Unencodable on the wire, possible in a call: a topic without a name fails deep in the handler.
        request.topics()
                .add(new ReassignableTopic()
                        .setName(null)
                        .setPartitions(List.of(
                                new ReassignablePartition().setPartitionIndex(0).setReplicas(List.of(1)))));

        assertThatThrownBy(() -> cluster.apply(request))
                .isInstanceOf(CommandFailedException.class)
                .hasMessageContaining("changed nothing");

        assertThat(controller.image()).isEqualTo(before);
        assertThat(partition(0).isReassigning()).isFalse();
        assertThat(reassign(List.of(4, 2, 3), true))
                .as("the controller goes on")
                .isEqualTo(Errors.NONE);
    }

    @Test
    void aMoveIsRefusedForUnknownBrokersDuplicatesOrAReplicationFactorChangeTheRequestForbids() {
        ClusterImage before = controller.image();

        assertThat(reassign(List.of(1, 9), true)).isEqualTo(Errors.INVALID_REPLICA_ASSIGNMENT);
        assertThat(reassign(List.of(1, 1, 2), true)).isEqualTo(Errors.INVALID_REPLICA_ASSIGNMENT);
        assertThat(reassign(List.of(1, 2), false)).isEqualTo(Errors.INVALID_REPLICATION_FACTOR);

        assertThat(controller.image()).isEqualTo(before);
    }

    @Test
    void newPartitionsKeepTheTopicsReplicationFactorAndAreRefusedWithKafkasErrors() {
        CreatePartitionsRequestData grow = new CreatePartitionsRequestData();
        grow.topics().add(new CreatePartitionsTopic().setName("t").setCount(4).setAssignments(null));
        assertThat(((CreatePartitionsResponseData) cluster.apply(grow))
                        .results()
                        .getFirst()
                        .errorCode())
                .isZero();

        assertThat(controller.image().topic("t").orElseThrow().partitions())
                .hasSize(4)
                .allSatisfy(p -> assertThat(p.replicas()).hasSize(3).doesNotHaveDuplicates());

        assertThat(grow("t", 4, null)).isEqualTo(Errors.INVALID_PARTITIONS);
        assertThat(grow("t", 2, null)).isEqualTo(Errors.INVALID_PARTITIONS);
        assertThat(grow("missing", 2, null)).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION);
        assertThat(grow("t", 5, List.of(List.of(1, 2)))).isEqualTo(Errors.INVALID_REPLICA_ASSIGNMENT);
        assertThat(grow("t", 6, List.of(List.of(1, 2, 3)))).isEqualTo(Errors.INVALID_REPLICA_ASSIGNMENT);
        assertThat(grow("t", 5, List.of(List.of(4, 3, 2)))).isEqualTo(Errors.NONE);
        assertThat(partition(4).replicas()).containsExactly(4, 3, 2);
        assertThat(partition(4).leader()).isEqualTo(4);
    }

    private Errors grow(String topic, int count, List<List<Integer>> assignments) {
        CreatePartitionsRequestData request = new CreatePartitionsRequestData();
        List<CreatePartitionsAssignment> list = null;
        if (assignments != null) {
            list = new ArrayList<>();
            for (List<Integer> a : assignments) {
                list.add(new CreatePartitionsAssignment().setBrokerIds(a));
            }
        }
        request.topics()
                .add(new CreatePartitionsTopic().setName(topic).setCount(count).setAssignments(list));
        return Errors.forCode(((CreatePartitionsResponseData) cluster.apply(request))
                .results()
                .getFirst()
                .errorCode());
    }

    @Test
    void thePreferredReplicaTakesBackItsLeadershipOnlyWhenInSyncAndAnUncleanElectionIsRefused() {
        cluster.apply(new BrokerHeartbeatRequestData()
                .setBrokerId(1)
                .setBrokerEpoch(cluster.epochs.get(1))
                .setWantFence(true));
        assertThat(partition(0).leader()).isEqualTo(2);

        assertThat(elect(ElectionType.PREFERRED)).isEqualTo(Errors.PREFERRED_LEADER_NOT_AVAILABLE);

        cluster.apply(new BrokerHeartbeatRequestData()
                .setBrokerId(1)
                .setBrokerEpoch(cluster.epochs.get(1))
                .setCurrentMetadataOffset(cluster.index()));
        assertThat(elect(ElectionType.PREFERRED))
                .as("unfenced but not yet back in the ISR")
                .isEqualTo(Errors.PREFERRED_LEADER_NOT_AVAILABLE);
        assertThat(leaderSetsIsr(List.of(2, 3, 1))).isEqualTo(Errors.NONE);

        int epochBefore = partition(0).leaderEpoch();
        assertThat(elect(ElectionType.PREFERRED)).isEqualTo(Errors.NONE);
        assertThat(partition(0).leader()).isEqualTo(1);
        assertThat(partition(0).leaderEpoch()).isEqualTo(epochBefore + 1);

        assertThat(elect(ElectionType.PREFERRED)).isEqualTo(Errors.ELECTION_NOT_NEEDED);
        assertThat(elect(ElectionType.UNCLEAN)).isEqualTo(Errors.INVALID_REQUEST);
    }

    private Errors elect(ElectionType type) {
        ElectLeadersRequestData request =
                new ElectLeadersRequestData().setElectionType(type.value).setTopicPartitions(null);
        ElectLeadersResponseData answer = (ElectLeadersResponseData) cluster.apply(request);
        return Errors.forCode(answer.replicaElectionResults()
                .getFirst()
                .partitionResult()
                .getFirst()
                .errorCode());
    }
}
