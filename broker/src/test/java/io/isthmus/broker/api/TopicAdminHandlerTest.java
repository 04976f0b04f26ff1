package io.isthmus.broker.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.broker.group.CommittedOffset;
import io.isthmus.broker.group.FileOffsetStore;
import io.isthmus.broker.partition.PartitionManager;
import io.isthmus.broker.testkit.TestPartitions;
import io.isthmus.broker.topic.TopicRegistry.TopicInfo;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TopicAdminHandlerTest {
    private static final short CREATE_VERSION = ApiKeys.CREATE_TOPICS.latestVersion();

    @TempDir
    Path tmp;

    private PartitionManager partitions;
    private FileOffsetStore offsets;
    private TopicAdminHandler handler;

    @BeforeEach
    void setUp() throws Exception {
        partitions = TestPartitions.start(tmp.resolve("logs"));
        offsets = FileOffsetStore.open(tmp.resolve("offsets"));
        handler = new TopicAdminHandler(partitions, offsets, 3, 0, AccessControl.allowAll());
    }

    @AfterEach
    void tearDown() throws Exception {
        partitions.close();
        offsets.close();
    }

    private static CreateTopicsRequestData.CreatableTopic topic(
            final String name, final int partitions, final short replication) {
        return new CreateTopicsRequestData.CreatableTopic()
                .setName(name)
                .setNumPartitions(partitions)
                .setReplicationFactor(replication);
    }

    private CreateTopicsResponseData.CreatableTopicResult create(
            final boolean validateOnly, final CreateTopicsRequestData.CreatableTopic topic) throws Exception {
        final CreateTopicsRequestData data =
                new CreateTopicsRequestData().setTimeoutMs(30_000).setValidateOnly(validateOnly);
        data.topics().add(topic);
        final CreateTopicsResponseData response = Requests.body(handler, ApiKeys.CREATE_TOPICS, CREATE_VERSION, data);
        return response.topics().find(topic.name());
    }

    @Test
    void aRequestForMoreThanKafkasPartitionsPerRequestIsRefusedWholeBeforeAnythingIsCreated() throws Exception {
        final CreateTopicsRequestData data = new CreateTopicsRequestData().setTimeoutMs(30_000);
        data.topics().add(topic("small", 1, (short) 1));
        data.topics().add(topic("huge", TopicAdminHandler.MAX_PARTITIONS_PER_REQUEST, (short) 1));

        final CreateTopicsResponseData response = Requests.body(handler, ApiKeys.CREATE_TOPICS, CREATE_VERSION, data);

        for (final String name : List.of("small", "huge")) {
            assertThat(response.topics().find(name).errorCode()).isEqualTo(Errors.POLICY_VIOLATION.code());
            assertThat(response.topics().find(name).errorMessage()).contains("10001 in all, at most 10000");
        }
        assertThat(partitions.topics().topics()).isEmpty();
    }

    @Test
    void shouldCreateATopic() throws Exception {
        final CreateTopicsResponseData.CreatableTopicResult result = create(false, topic("orders", 2, (short) 1));

        assertThat(result.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(result.numPartitions()).isEqualTo(2);
        assertThat(result.replicationFactor()).isEqualTo((short) 1);
        final TopicInfo created = partitions.topics().byName("orders").orElseThrow();
        assertThat(result.topicId()).isEqualTo(created.id());
        assertThat(partitions.partition(new TopicPartition("orders", 1))).isPresent();
    }

    @Test
    void shouldUseTheBrokerDefaultsForMinusOne() throws Exception {
        final CreateTopicsResponseData.CreatableTopicResult result = create(false, topic("orders", -1, (short) -1));

        assertThat(result.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(result.numPartitions()).isEqualTo(3);
        assertThat(partitions.topics().byName("orders").orElseThrow().partitions())
                .isEqualTo(3);
    }

    @Test
    void shouldTakeThePartitionCountFromExplicitAssignments() throws Exception {
        final CreateTopicsRequestData.CreatableTopic requested = topic("orders", -1, (short) -1);
        for (int p = 0; p < 5; p++) {
            requested
                    .assignments()
                    .add(new CreateTopicsRequestData.CreatableReplicaAssignment()
                            .setPartitionIndex(p)
                            .setBrokerIds(List.of(0)));
        }

        assertThat(create(false, requested).numPartitions()).isEqualTo(5);
        assertThat(partitions.topics().byName("orders").orElseThrow().partitions())
                .isEqualTo(5);
    }

    @Test
    void shouldAnswerTopicExists() throws Exception {
        create(false, topic("orders", 1, (short) 1));

        final CreateTopicsResponseData.CreatableTopicResult again = create(false, topic("orders", 4, (short) 1));

        assertThat(again.errorCode()).isEqualTo(Errors.TOPIC_ALREADY_EXISTS.code());
        assertThat(partitions.topics().byName("orders").orElseThrow().partitions())
                .isEqualTo(1);
    }

    @Test
    void shouldValidateWithoutCreating() throws Exception {
        final CreateTopicsResponseData.CreatableTopicResult valid = create(true, topic("orders", 2, (short) 1));

        assertThat(valid.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(valid.numPartitions()).isEqualTo(2);
        assertThat(partitions.topics().byName("orders")).isEmpty();
        assertThat(create(true, topic("bad name", 2, (short) 1)).errorCode())
                .isEqualTo(Errors.INVALID_TOPIC_EXCEPTION.code());

        create(false, topic("orders", 2, (short) 1));
        assertThat(create(true, topic("orders", 2, (short) 1)).errorCode())
                .isEqualTo(Errors.TOPIC_ALREADY_EXISTS.code());
    }

    @Test
    void shouldRefuseAReplicationFactorAboveOne() throws Exception {
        final CreateTopicsResponseData.CreatableTopicResult result = create(false, topic("orders", 1, (short) 3));

        assertThat(result.errorCode()).isEqualTo(Errors.INVALID_REPLICATION_FACTOR.code());
        assertThat(result.errorMessage()).contains("3");
        assertThat(partitions.topics().byName("orders")).isEmpty();
    }

    @Test
    void shouldRefuseFewerThanOnePartition() throws Exception {
        assertThat(create(false, topic("orders", 0, (short) 1)).errorCode())
                .isEqualTo(Errors.INVALID_PARTITIONS.code());
    }

    @Test
    void shouldRefusePerTopicConfigs() throws Exception {
        final CreateTopicsRequestData.CreatableTopic requested = topic("orders", 1, (short) 1);
        requested
                .configs()
                .add(new CreateTopicsRequestData.CreatableTopicConfig()
                        .setName("retention.ms")
                        .setValue("1000"));

        final CreateTopicsResponseData.CreatableTopicResult result = create(false, requested);

        assertThat(result.errorCode()).isEqualTo(Errors.INVALID_CONFIG.code());
        assertThat(partitions.topics().byName("orders")).isEmpty();
    }

    @Test
    void shouldDeleteByNameAndForgetCommittedOffsets() throws Exception {
        create(false, topic("orders", 1, (short) 1));
        final TopicPartition orders0 = new TopicPartition("orders", 0);
        offsets.commit("group", Map.of(orders0, new CommittedOffset(5, 0, "", 1)));
        final DeleteTopicsRequestData data = new DeleteTopicsRequestData().setTopicNames(List.of("orders", "missing"));

        final DeleteTopicsResponseData response = Requests.body(handler, ApiKeys.DELETE_TOPICS, (short) 5, data);

        assertThat(response.responses().find("orders").errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(response.responses().find("missing").errorCode())
                .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        assertThat(partitions.topics().byName("orders")).isEmpty();
        assertThat(partitions.partition(orders0)).isEmpty();
        assertThat(offsets.committed("group")).isEmpty();
    }

    @Test
    void shouldDeleteByTopicIdFromVersion6() throws Exception {
        create(false, topic("orders", 1, (short) 1));
        final Uuid id = partitions.topics().byName("orders").orElseThrow().id();
        final Uuid unknown = Uuid.randomUuid();
        final DeleteTopicsRequestData data = new DeleteTopicsRequestData();
        data.topics()
                .add(new DeleteTopicsRequestData.DeleteTopicState()
                        .setName(null)
                        .setTopicId(id));
        data.topics()
                .add(new DeleteTopicsRequestData.DeleteTopicState()
                        .setName(null)
                        .setTopicId(unknown));

        final DeleteTopicsResponseData response = Requests.body(handler, ApiKeys.DELETE_TOPICS, (short) 6, data);

        final List<DeleteTopicsResponseData.DeletableTopicResult> results = List.copyOf(response.responses());
        assertThat(results.get(0).errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(results.get(0).name()).isEqualTo("orders");
        assertThat(results.get(0).topicId()).isEqualTo(id);
        assertThat(results.get(1).errorCode()).isEqualTo(Errors.UNKNOWN_TOPIC_ID.code());
        assertThat(partitions.topics().byId(id)).isEmpty();
    }

    // ------------------------------------------------------------------ CreatePartitions

    private CreatePartitionsResponseData grow(
            final boolean validateOnly, final CreatePartitionsRequestData.CreatePartitionsTopic... topics)
            throws Exception {
        final CreatePartitionsRequestData data =
                new CreatePartitionsRequestData().setTimeoutMs(30_000).setValidateOnly(validateOnly);
        data.topics().addAll(List.of(topics));
        return Requests.body(handler, ApiKeys.CREATE_PARTITIONS, ApiKeys.CREATE_PARTITIONS.latestVersion(), data);
    }

    private static CreatePartitionsRequestData.CreatePartitionsTopic growTo(final String name, final int count) {
        return new CreatePartitionsRequestData.CreatePartitionsTopic()
                .setName(name)
                .setCount(count)
                .setAssignments(null);
    }

    private static short errorOf(final CreatePartitionsResponseData response, final int index) {
        return response.results().get(index).errorCode();
    }

    @Test
    void shouldAddPartitionsThatSurviveARestart() throws Exception {
        create(false, topic("growing", 2, (short) 1));
        final Uuid id = partitions.topics().byName("growing").orElseThrow().id();

        final CreatePartitionsResponseData response = grow(false, growTo("growing", 5));

        assertThat(errorOf(response, 0)).isEqualTo(Errors.NONE.code());
        assertThat(partitions.topics().byName("growing").orElseThrow()).isEqualTo(new TopicInfo("growing", id, 5));
        assertThat(partitions.partition(new TopicPartition("growing", 4))).isPresent();
        partitions.close();
        partitions = TestPartitions.start(tmp.resolve("logs"));
        assertThat(partitions.topics().byName("growing").orElseThrow().partitions())
                .isEqualTo(5);
        assertThat(partitions.partition(new TopicPartition("growing", 4))).isPresent();
    }

    @SafeVarargs
    private static CreatePartitionsRequestData.CreatePartitionsTopic assigned(
            final String name, final int count, final List<Integer>... replicas) {
        final List<CreatePartitionsRequestData.CreatePartitionsAssignment> assignments = new ArrayList<>();
        for (final List<Integer> brokers : replicas) {
            assignments.add(new CreatePartitionsRequestData.CreatePartitionsAssignment().setBrokerIds(brokers));
        }
        return growTo(name, count).setAssignments(assignments);
    }

    @Test
    void shouldRefuseWithKafkasErrorsAndChangeNothing() throws Exception {
        create(false, topic("fixed", 3, (short) 1));

        assertThat(errorOf(grow(false, growTo("fixed", 3)), 0)).isEqualTo(Errors.INVALID_PARTITIONS.code());
        assertThat(errorOf(grow(false, growTo("fixed", 2)), 0)).isEqualTo(Errors.INVALID_PARTITIONS.code());
        assertThat(errorOf(grow(false, growTo("missing", 2)), 0)).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        assertThat(errorOf(grow(false, assigned("fixed", 4, List.of(7))), 0))
                .as("a broker that does not exist")
                .isEqualTo(Errors.INVALID_REPLICA_ASSIGNMENT.code());
        assertThat(errorOf(grow(false, assigned("fixed", 4, List.of(0, 7))), 0))
                .as("two replicas")
                .isEqualTo(Errors.INVALID_REPLICA_ASSIGNMENT.code());
        assertThat(errorOf(grow(false, assigned("fixed", 4, List.of())), 0))
                .as("no replica")
                .isEqualTo(Errors.INVALID_REPLICA_ASSIGNMENT.code());
        assertThat(errorOf(grow(false, assigned("fixed", 5, List.of(0))), 0))
                .as("fewer assignments than new partitions")
                .isEqualTo(Errors.INVALID_REPLICA_ASSIGNMENT.code());
        assertThat(errorOf(grow(true, growTo("fixed", 8)), 0))
                .as("validate only")
                .isEqualTo(Errors.NONE.code());
        assertThat(errorOf(grow(true, growTo("fixed", 3)), 0))
                .as("validate only, same count")
                .isEqualTo(Errors.INVALID_PARTITIONS.code());
        assertThat(errorOf(grow(true, assigned("fixed", 4, List.of(7))), 0))
                .as("validate only, another broker")
                .isEqualTo(Errors.INVALID_REPLICA_ASSIGNMENT.code());

        assertThat(partitions.topics().byName("fixed").orElseThrow().partitions())
                .isEqualTo(3);
        assertThat(partitions.partition(new TopicPartition("fixed", 3))).isEmpty();
        assertThat(tmp.resolve("logs").resolve("fixed-3")).doesNotExist();
    }

    @Test
    void shouldCheckTheTopicAndItsCountBeforeTheAssignments() throws Exception {
        create(false, topic("checked", 2, (short) 1));

        // As in Kafka's controller: a missing topic or a count that is no increase is what the caller hears about,
        // not the assignments that cannot fit it.
        final CreatePartitionsResponseData missing = grow(false, assigned("absent", 2, List.of(7)));
        final CreatePartitionsResponseData smaller = grow(false, assigned("checked", 1, List.of(7)));

        assertThat(errorOf(missing, 0)).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        assertThat(errorOf(smaller, 0)).isEqualTo(Errors.INVALID_PARTITIONS.code());
        assertThat(smaller.results().get(0).errorMessage())
                .isEqualTo("topic 'checked' currently has 2 partitions; 1 would not be an increase");
    }

    @Test
    void shouldAnswerADuplicateTopicOnceWithInvalidRequestAndStillGrowTheOthers() throws Exception {
        create(false, topic("twice", 1, (short) 1));
        create(false, topic("once", 1, (short) 1));

        final CreatePartitionsResponseData response =
                grow(false, growTo("twice", 4), growTo("once", 2), growTo("twice", 6));

        assertThat(response.results()).hasSize(2);
        assertThat(response.results().get(0).name()).isEqualTo("twice");
        assertThat(errorOf(response, 0)).isEqualTo(Errors.INVALID_REQUEST.code());
        assertThat(response.results().get(0).errorMessage()).contains("'twice'", "2 times");
        assertThat(response.results().get(1).name()).isEqualTo("once");
        assertThat(errorOf(response, 1)).isEqualTo(Errors.NONE.code());
        assertThat(partitions.topics().byName("twice").orElseThrow().partitions())
                .isEqualTo(1);
        assertThat(partitions.topics().byName("once").orElseThrow().partitions())
                .isEqualTo(2);
    }

    @Test
    void shouldAcceptAnAssignmentOfEachNewPartitionToThisBroker() throws Exception {
        create(false, topic("assigned", 1, (short) 1));

        assertThat(errorOf(grow(false, assigned("assigned", 3, List.of(0), List.of(0))), 0))
                .isEqualTo(Errors.NONE.code());
        assertThat(partitions.topics().byName("assigned").orElseThrow().partitions())
                .isEqualTo(3);
        assertThat(partitions.partition(new TopicPartition("assigned", 2))).isPresent();
    }
}
