package io.isthmus.broker.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.broker.partition.Partition;
import io.isthmus.broker.partition.PartitionLeadership;
import io.isthmus.broker.partition.PartitionManager;
import io.isthmus.broker.security.Authorizer;
import io.isthmus.broker.testkit.KafkaBatches;
import io.isthmus.broker.testkit.TestPartitions;
import java.nio.file.Path;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData.OffsetForLeaderPartition;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData.OffsetForLeaderTopic;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData.EpochEndOffset;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OffsetForLeaderEpochHandlerTest {
    private static final short VERSION = ApiKeys.OFFSET_FOR_LEADER_EPOCH.latestVersion();
    private static final int CONSUMER = -1;

    @TempDir
    Path tmp;

    private PartitionManager partitions;
    private Partition orders;

    @BeforeEach
    void setUp() throws Exception {
        partitions = TestPartitions.start(tmp);
        partitions.createTopic("orders", 1);
        orders = partitions.partition(new TopicPartition("orders", 0)).orElseThrow();
        orders.appendFromClient(KafkaBatches.segment(KafkaBatches.plain("a", 3, 1_000L))); // 0..2, epoch 0
        orders.becomeLeader(2);
        orders.appendFromClient(KafkaBatches.segment(KafkaBatches.plain("b", 4, 2_000L))); // 3..6, epoch 2
    }

    @AfterEach
    void tearDown() throws Exception {
        partitions.close();
    }

    private EpochEndOffset ask(
            final OffsetForLeaderEpochHandler handler,
            final int replicaId,
            final String topic,
            final int leaderEpoch,
            final int currentLeaderEpoch)
            throws Exception {
        final OffsetForLeaderEpochRequestData data = new OffsetForLeaderEpochRequestData().setReplicaId(replicaId);
        final OffsetForLeaderTopic requested = new OffsetForLeaderTopic().setTopic(topic);
        requested
                .partitions()
                .add(new OffsetForLeaderPartition()
                        .setPartition(0)
                        .setLeaderEpoch(leaderEpoch)
                        .setCurrentLeaderEpoch(currentLeaderEpoch));
        data.topics().add(requested);
        final OffsetForLeaderEpochResponseData response =
                Requests.body(handler, ApiKeys.OFFSET_FOR_LEADER_EPOCH, VERSION, data);
        assertThat(response.topics().iterator().next().topic()).isEqualTo(topic);
        return response.topics().iterator().next().partitions().getFirst();
    }

    private OffsetForLeaderEpochHandler handler() {
        return new OffsetForLeaderEpochHandler(partitions, AccessControl.allowAll(), PartitionLeadership.SOLE_BROKER);
    }

    @Test
    void anOlderEpochEndsWhereTheNextBegins() throws Exception {
        final EpochEndOffset answer = ask(handler(), CONSUMER, "orders", 0, -1);

        assertThat(answer.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(answer.leaderEpoch()).isZero();
        assertThat(answer.endOffset()).isEqualTo(3);
    }

    @Test
    void theCurrentEpochEndsAtTheLogEnd() throws Exception {
        final EpochEndOffset answer = ask(handler(), CONSUMER, "orders", 2, -1);

        assertThat(answer.leaderEpoch()).isEqualTo(2);
        assertThat(answer.endOffset()).isEqualTo(7);
    }

    @Test
    void aSkippedEpochIsAnsweredWithTheOneBeforeIt() throws Exception {
        final EpochEndOffset answer = ask(handler(), CONSUMER, "orders", 1, -1);

        assertThat(answer.leaderEpoch()).isZero();
        assertThat(answer.endOffset()).isEqualTo(3);
    }

    @Test
    void anEpochNewerThanTheLeadersIsUndefined() throws Exception {
        final EpochEndOffset answer = ask(handler(), CONSUMER, "orders", 9, -1);

        assertThat(answer.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(answer.leaderEpoch()).isEqualTo(-1);
        assertThat(answer.endOffset()).isEqualTo(-1);
    }

    @Test
    void anUnknownPartitionIsAnsweredAsSuch() throws Exception {
        assertThat(ask(handler(), CONSUMER, "nope", 0, -1).errorCode())
                .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
    }

    @Test
    void theLeadershipCheckDecidesBeforeTheLogIsAsked() throws Exception {
        final PartitionLeadership fencing = new PartitionLeadership() {
            @Override
            public Errors check(final Partition partition, final int currentLeaderEpoch) {
                return currentLeaderEpoch < partition.leaderEpoch() ? Errors.FENCED_LEADER_EPOCH : Errors.NONE;
            }

            @Override
            public boolean heldElsewhere(final TopicPartition partition) {
                return false;
            }
        };
        final OffsetForLeaderEpochHandler handler =
                new OffsetForLeaderEpochHandler(partitions, AccessControl.allowAll(), fencing);

        final EpochEndOffset fenced = ask(handler, CONSUMER, "orders", 0, 1);

        assertThat(fenced.errorCode()).isEqualTo(Errors.FENCED_LEADER_EPOCH.code());
        assertThat(fenced.endOffset()).isEqualTo(-1);
        assertThat(ask(handler, CONSUMER, "orders", 0, 2).endOffset()).isEqualTo(3);
    }

    @Test
    void describeOnTheTopicOrClusterActionAllowsTheQuestion() throws Exception {
        final Authorizer describeOnly = new Authorizer() {
            @Override
            public boolean authorize(
                    final org.apache.kafka.common.security.auth.KafkaPrincipal principal,
                    final java.net.InetAddress host,
                    final AclOperation operation,
                    final ResourceType type,
                    final String name) {
                return operation == AclOperation.DESCRIBE && type == ResourceType.TOPIC && name.equals("orders");
            }

            @Override
            public boolean authorizeAny(
                    final org.apache.kafka.common.security.auth.KafkaPrincipal principal,
                    final java.net.InetAddress host,
                    final AclOperation operation,
                    final ResourceType type) {
                return false;
            }
        };
        final OffsetForLeaderEpochHandler handler = new OffsetForLeaderEpochHandler(
                partitions, new AccessControl(describeOnly), PartitionLeadership.SOLE_BROKER);

        assertThat(ask(handler, CONSUMER, "orders", 0, -1).endOffset()).isEqualTo(3);
        assertThat(ask(handler, 1, "orders", 0, -1).endOffset()).isEqualTo(3);
        assertThat(ask(handler, CONSUMER, "secret", 0, -1).errorCode())
                .isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED.code());
    }
}
