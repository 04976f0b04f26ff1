package io.isthmus.broker.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.isthmus.broker.config.Endpoint;
import io.isthmus.broker.group.FileOffsetStore;
import io.isthmus.broker.group.GroupCoordinator;
import io.isthmus.broker.partition.PartitionManager;
import io.isthmus.broker.producer.ProducerIdAllocator;
import io.isthmus.broker.testkit.TestPartitions;
import io.isthmus.broker.testkit.TestTransactions;
import io.isthmus.broker.topic.TopicRegistry;
import io.isthmus.broker.topic.TopicRegistry.TopicInfo;
import io.isthmus.broker.transaction.CoordinatorHeldOffsets;
import io.isthmus.broker.transaction.TransactionCoordinator;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupResponseData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.MessageUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GroupHandlerTest {
    private static final byte GROUP_KEY = 0;
    private static final byte TRANSACTION_KEY = 1;

    @TempDir
    Path tmp;

    private FileOffsetStore offsets;
    private GroupCoordinator coordinator;
    private PartitionManager partitions;
    private TransactionCoordinator transactions;
    private TopicRegistry topics;
    private GroupHandler handler;
    private TopicInfo orders;

    @BeforeEach
    void setUp() throws Exception {
        offsets = FileOffsetStore.open(tmp.resolve("offsets"));
        coordinator = new GroupCoordinator(offsets, new GroupCoordinator.GroupSettings(0, 6_000, 300_000));
        topics = TopicRegistry.open(tmp);
        orders = topics.create("orders", 2);
        final BrokerNode node = new BrokerNode(5, "cluster");
        node.advertise(List.of(new Endpoint("PLAINTEXT", "broker.example", 9092)));
        partitions = TestPartitions.start(tmp.resolve("logs"));
        transactions = TestTransactions.start(
                tmp.resolve("logs"), ProducerIdAllocator.open(tmp.resolve("ids")), partitions, coordinator);
        handler = new GroupHandler(
                coordinator, new CoordinatorHeldOffsets(transactions), topics, node, AccessControl.allowAll());
    }

    @AfterEach
    void tearDown() throws Exception {
        transactions.close();
        partitions.close();
        coordinator.close();
        offsets.close();
    }

    @Test
    void aGroupCoordinatedByAnotherBrokerIsAnsweredNotCoordinator() throws Exception {
        final CoordinatorLocator elsewhere = new CoordinatorLocator() {
            @Override
            public Located locate(final byte keyType, final String key, final String listenerName) {
                return Located.none(Errors.COORDINATOR_NOT_AVAILABLE, null);
            }

            @Override
            public Errors coordination(final byte keyType, final String key) {
                return switch (key) {
                    case "theirs" -> Errors.NOT_COORDINATOR;
                    case "loading" -> Errors.COORDINATOR_LOAD_IN_PROGRESS;
                    default -> Errors.NONE;
                };
            }
        };
        final GroupHandler cluster = new GroupHandler(
                coordinator, new CoordinatorHeldOffsets(transactions), topics, elsewhere, AccessControl.allowAll());

        final Errors theirs = heartbeatOfStranger(cluster, "theirs");
        final OffsetCommitRequestData commit = new OffsetCommitRequestData().setGroupId("theirs");
        commit.topics()
                .add(new OffsetCommitRequestData.OffsetCommitRequestTopic()
                        .setName("orders")
                        .setPartitions(List.of(new OffsetCommitRequestData.OffsetCommitRequestPartition()
                                .setPartitionIndex(0)
                                .setCommittedOffset(5))));
        final OffsetCommitResponseData committed = Requests.body(cluster, ApiKeys.OFFSET_COMMIT, (short) 8, commit);
        final Errors ours = heartbeatOfStranger(cluster, "ours");

        assertThat(theirs).isEqualTo(Errors.NOT_COORDINATOR);
        assertThat(Errors.forCode(
                        committed.topics().getFirst().partitions().getFirst().errorCode()))
                .isEqualTo(Errors.NOT_COORDINATOR);
        assertThat(offsets.committed("theirs")).isEmpty();
        assertThat(ours).isNotEqualTo(Errors.NOT_COORDINATOR);

        assertThat(heartbeatOfStranger(cluster, "loading")).isEqualTo(Errors.COORDINATOR_LOAD_IN_PROGRESS);

        // Batches naming several groups answer each on its own.
        final DescribeGroupsResponseData described = Requests.body(
                cluster,
                ApiKeys.DESCRIBE_GROUPS,
                ApiKeys.DESCRIBE_GROUPS.latestVersion(),
                new DescribeGroupsRequestData().setGroups(List.of("theirs", "ours")));
        assertThat(described.groups())
                .extracting(g -> g.groupId() + "=" + Errors.forCode(g.errorCode()))
                .containsExactly("theirs=NOT_COORDINATOR", "ours=NONE");
        final OffsetFetchRequestData fetch = new OffsetFetchRequestData()
                .setGroups(List.of(
                        new OffsetFetchRequestData.OffsetFetchRequestGroup()
                                .setGroupId("theirs")
                                .setTopics(null),
                        new OffsetFetchRequestData.OffsetFetchRequestGroup()
                                .setGroupId("ours")
                                .setTopics(null)));
        final OffsetFetchResponseData fetched = Requests.body(cluster, ApiKeys.OFFSET_FETCH, (short) 8, fetch);
        assertThat(fetched.groups())
                .extracting(g -> g.groupId() + "=" + Errors.forCode(g.errorCode()))
                .containsExactly("theirs=NOT_COORDINATOR", "ours=NONE");
    }

    /** The error of a heartbeat to {@code group} from member "m" of generation 1, which the group does not know. */
    private static Errors heartbeatOfStranger(final GroupHandler handler, final String group) throws Exception {
        final HeartbeatResponseData answer = Requests.body(
                handler,
                ApiKeys.HEARTBEAT,
                ApiKeys.HEARTBEAT.latestVersion(),
                new HeartbeatRequestData().setGroupId(group).setMemberId("m").setGenerationId(1));
        return Errors.forCode(answer.errorCode());
    }

    @Test
    void shouldFindThisBrokerAsGroupCoordinatorInTheV3Shape() throws Exception {
        final FindCoordinatorResponseData group = Requests.body(
                handler,
                ApiKeys.FIND_COORDINATOR,
                (short) 3,
                new FindCoordinatorRequestData().setKey("g").setKeyType(GROUP_KEY));
        final FindCoordinatorResponseData transaction = Requests.body(
                handler,
                ApiKeys.FIND_COORDINATOR,
                (short) 3,
                new FindCoordinatorRequestData().setKey("tx").setKeyType(TRANSACTION_KEY));

        assertThat(group.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(group.nodeId()).isEqualTo(5);
        assertThat(group.host()).isEqualTo("broker.example");
        assertThat(group.port()).isEqualTo(9092);
        assertThat(transaction.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(transaction.nodeId()).isEqualTo(5);
        assertThat(transaction.host()).isEqualTo("broker.example");
    }

    @Test
    void shouldFindThisBrokerForEveryKeyInTheV4Shape() throws Exception {
        final short version = ApiKeys.FIND_COORDINATOR.latestVersion();
        final FindCoordinatorResponseData groups = Requests.body(
                handler,
                ApiKeys.FIND_COORDINATOR,
                version,
                new FindCoordinatorRequestData().setKeyType(GROUP_KEY).setCoordinatorKeys(List.of("a", "b")));
        final FindCoordinatorResponseData transactionCoordinators = Requests.body(
                handler,
                ApiKeys.FIND_COORDINATOR,
                version,
                new FindCoordinatorRequestData().setKeyType(TRANSACTION_KEY).setCoordinatorKeys(List.of("tx")));

        assertThat(groups.coordinators())
                .extracting(FindCoordinatorResponseData.Coordinator::key)
                .containsExactly("a", "b");
        assertThat(groups.coordinators()).allSatisfy(c -> {
            assertThat(c.errorCode()).isEqualTo(Errors.NONE.code());
            assertThat(c.nodeId()).isEqualTo(5);
            assertThat(c.host()).isEqualTo("broker.example");
            assertThat(c.port()).isEqualTo(9092);
        });
        assertThat(transactionCoordinators.coordinators().getFirst().errorCode())
                .isEqualTo(Errors.NONE.code());
        assertThat(transactionCoordinators.coordinators().getFirst().nodeId()).isEqualTo(5);
    }

    private JoinGroupResponseData join(final String memberId) throws Exception {
        final JoinGroupRequestData data = new JoinGroupRequestData()
                .setGroupId("g")
                .setMemberId(memberId)
                .setSessionTimeoutMs(30_000)
                .setRebalanceTimeoutMs(60_000)
                .setProtocolType("consumer");
        data.protocols()
                .add(new JoinGroupRequestData.JoinGroupRequestProtocol()
                        .setName("range")
                        .setMetadata("subscription".getBytes(StandardCharsets.UTF_8)));
        return Requests.body(handler, ApiKeys.JOIN_GROUP, ApiKeys.JOIN_GROUP.latestVersion(), data);
    }

    @Test
    void aFailedJoinAnswersInEveryVersionEvenThoseThatCannotCarryANullProtocol() throws Exception {
        for (short version = 0; version <= ApiKeys.JOIN_GROUP.latestVersion(); version++) {
            final JoinGroupRequestData data = new JoinGroupRequestData()
                    .setGroupId("")
                    .setMemberId("nobody")
                    .setSessionTimeoutMs(30_000)
                    .setRebalanceTimeoutMs(60_000)
                    .setProtocolType("consumer");
            final JoinGroupResponseData failed = Requests.body(handler, ApiKeys.JOIN_GROUP, version, data);

            assertThat(failed.errorCode()).as("v%d", version).isNotEqualTo(Errors.NONE.code());
            // Found by the fuzzer: a null protocol name made the v0-v6 answer unwritable.
            final short written = version;
            assertThatCode(() -> MessageUtil.toByteBufferAccessor(failed, written))
                    .doesNotThrowAnyException();
        }
    }

    @Test
    void shouldRunTheGroupProtocolThroughItsMessages() throws Exception {
        final JoinGroupResponseData required = join("");
        assertThat(required.errorCode()).isEqualTo(Errors.MEMBER_ID_REQUIRED.code());

        final JoinGroupResponseData joined = join(required.memberId());
        assertThat(joined.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(joined.leader()).isEqualTo(required.memberId());
        assertThat(joined.protocolName()).isEqualTo("range");
        assertThat(joined.members()).singleElement().satisfies(m -> assertThat(m.metadata())
                .isEqualTo("subscription".getBytes(StandardCharsets.UTF_8)));

        final SyncGroupRequestData sync = new SyncGroupRequestData()
                .setGroupId("g")
                .setGenerationId(joined.generationId())
                .setMemberId(joined.memberId())
                .setProtocolType("consumer")
                .setProtocolName("range");
        sync.assignments()
                .add(new SyncGroupRequestData.SyncGroupRequestAssignment()
                        .setMemberId(joined.memberId())
                        .setAssignment(new byte[] {1, 2, 3}));
        final SyncGroupResponseData synced =
                Requests.body(handler, ApiKeys.SYNC_GROUP, ApiKeys.SYNC_GROUP.latestVersion(), sync);
        assertThat(synced.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(synced.assignment()).containsExactly(1, 2, 3);

        final HeartbeatResponseData heartbeat = Requests.body(
                handler,
                ApiKeys.HEARTBEAT,
                ApiKeys.HEARTBEAT.latestVersion(),
                new HeartbeatRequestData()
                        .setGroupId("g")
                        .setGenerationId(joined.generationId())
                        .setMemberId(joined.memberId()));
        assertThat(heartbeat.errorCode()).isEqualTo(Errors.NONE.code());

        final DescribeGroupsResponseData described = Requests.body(
                handler,
                ApiKeys.DESCRIBE_GROUPS,
                ApiKeys.DESCRIBE_GROUPS.latestVersion(),
                new DescribeGroupsRequestData().setGroups(List.of("g")));
        assertThat(described.groups().getFirst().groupState()).isEqualTo("Stable");
        assertThat(described.groups().getFirst().members().getFirst().clientHost())
                .isEqualTo("/127.0.0.1");
        assertThat(described.groups().getFirst().members().getFirst().memberAssignment())
                .containsExactly(1, 2, 3);

        final ListGroupsResponseData listed = Requests.body(
                handler, ApiKeys.LIST_GROUPS, ApiKeys.LIST_GROUPS.latestVersion(), new ListGroupsRequestData());
        assertThat(listed.groups()).singleElement().satisfies(g -> {
            assertThat(g.groupId()).isEqualTo("g");
            assertThat(g.groupState()).isEqualTo("Stable");
            assertThat(g.protocolType()).isEqualTo("consumer");
        });

        final LeaveGroupRequestData leave = new LeaveGroupRequestData().setGroupId("g");
        leave.members().add(new LeaveGroupRequestData.MemberIdentity().setMemberId(joined.memberId()));
        leave.members().add(new LeaveGroupRequestData.MemberIdentity().setMemberId("stranger"));
        final LeaveGroupResponseData left =
                Requests.body(handler, ApiKeys.LEAVE_GROUP, ApiKeys.LEAVE_GROUP.latestVersion(), leave);
        assertThat(left.members())
                .extracting(LeaveGroupResponseData.MemberResponse::errorCode)
                .containsExactly(Errors.NONE.code(), Errors.UNKNOWN_MEMBER_ID.code());
    }

    @Test
    void shouldAnswerALegacyLeaveAtTheTopLevel() throws Exception {
        final LeaveGroupResponseData left = Requests.body(
                handler,
                ApiKeys.LEAVE_GROUP,
                (short) 1,
                new LeaveGroupRequestData().setGroupId("g").setMemberId("stranger"));

        assertThat(left.errorCode()).isEqualTo(Errors.UNKNOWN_MEMBER_ID.code());
    }

    private OffsetCommitResponseData commit(
            final short version, final String topic, final Uuid topicId, final int partition, final long offset)
            throws Exception {
        final OffsetCommitRequestData data = new OffsetCommitRequestData()
                .setGroupId("g")
                .setGenerationIdOrMemberEpoch(-1)
                .setMemberId("");
        final OffsetCommitRequestData.OffsetCommitRequestTopic requested =
                new OffsetCommitRequestData.OffsetCommitRequestTopic()
                        .setName(topic)
                        .setTopicId(topicId);
        requested
                .partitions()
                .add(new OffsetCommitRequestData.OffsetCommitRequestPartition()
                        .setPartitionIndex(partition)
                        .setCommittedOffset(offset)
                        .setCommittedLeaderEpoch(2)
                        .setCommittedMetadata("meta"));
        data.topics().add(requested);
        return Requests.body(handler, ApiKeys.OFFSET_COMMIT, version, data);
    }

    private static short commitError(final OffsetCommitResponseData response) {
        return response.topics().getFirst().partitions().getFirst().errorCode();
    }

    @Test
    void shouldCommitAndFetchOffsetsInTheLegacyShape() throws Exception {
        assertThat(commitError(commit((short) 7, "orders", Uuid.ZERO_UUID, 1, 42)))
                .isEqualTo(Errors.NONE.code());

        final OffsetFetchRequestData fetch = new OffsetFetchRequestData().setGroupId("g");
        fetch.topics()
                .add(new OffsetFetchRequestData.OffsetFetchRequestTopic()
                        .setName("orders")
                        .setPartitionIndexes(List.of(0, 1)));
        final OffsetFetchResponseData fetched = Requests.body(handler, ApiKeys.OFFSET_FETCH, (short) 7, fetch);

        final List<OffsetFetchResponseData.OffsetFetchResponsePartition> partitions =
                fetched.topics().getFirst().partitions();
        assertThat(partitions.get(0).committedOffset()).isEqualTo(-1);
        assertThat(partitions.get(1).committedOffset()).isEqualTo(42);
        assertThat(partitions.get(1).committedLeaderEpoch()).isEqualTo(2);
        assertThat(partitions.get(1).metadata()).isEqualTo("meta");

        final OffsetFetchResponseData all = Requests.body(
                handler,
                ApiKeys.OFFSET_FETCH,
                (short) 7,
                new OffsetFetchRequestData().setGroupId("g").setTopics(null));
        assertThat(all.topics()).singleElement().satisfies(t -> {
            assertThat(t.name()).isEqualTo("orders");
            assertThat(t.partitions()).singleElement().satisfies(p -> assertThat(p.committedOffset())
                    .isEqualTo(42));
        });
    }

    @Test
    void shouldRefuseCommitsForUnknownTopicsAndPartitions() throws Exception {
        assertThat(commitError(commit((short) 7, "missing", Uuid.ZERO_UUID, 0, 1)))
                .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        assertThat(commitError(commit((short) 7, "orders", Uuid.ZERO_UUID, 2, 1)))
                .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        assertThat(commitError(commit(ApiKeys.OFFSET_COMMIT.latestVersion(), null, Uuid.randomUuid(), 0, 1)))
                .isEqualTo(Errors.UNKNOWN_TOPIC_ID.code());
        assertThat(coordinator.committedOffsets("g")).isEmpty();
    }

    @Test
    void shouldCommitAndFetchByTopicIdInTheGroupsShape() throws Exception {
        final short commitVersion = ApiKeys.OFFSET_COMMIT.latestVersion();
        assertThat(commitError(commit(commitVersion, null, orders.id(), 0, 7))).isEqualTo(Errors.NONE.code());

        final OffsetFetchRequestData byId = new OffsetFetchRequestData();
        final OffsetFetchRequestData.OffsetFetchRequestGroup group =
                new OffsetFetchRequestData.OffsetFetchRequestGroup().setGroupId("g");
        group.topics()
                .add(new OffsetFetchRequestData.OffsetFetchRequestTopics()
                        .setTopicId(orders.id())
                        .setPartitionIndexes(List.of(0)));
        byId.groups().add(group);
        final OffsetFetchResponseData fetched =
                Requests.body(handler, ApiKeys.OFFSET_FETCH, ApiKeys.OFFSET_FETCH.latestVersion(), byId);

        final OffsetFetchResponseData.OffsetFetchResponseGroup groupResponse =
                fetched.groups().getFirst();
        assertThat(groupResponse.groupId()).isEqualTo("g");
        assertThat(groupResponse.topics().getFirst().topicId()).isEqualTo(orders.id());
        assertThat(groupResponse.topics().getFirst().partitions().getFirst().committedOffset())
                .isEqualTo(7);
    }

    @Test
    void shouldFetchEveryCommittedTopicInTheGroupsShapeByName() throws Exception {
        commit((short) 7, "orders", Uuid.ZERO_UUID, 0, 3);
        final OffsetFetchRequestData all = new OffsetFetchRequestData();
        all.groups()
                .add(new OffsetFetchRequestData.OffsetFetchRequestGroup()
                        .setGroupId("g")
                        .setTopics(null));

        final OffsetFetchResponseData fetched = Requests.body(handler, ApiKeys.OFFSET_FETCH, (short) 8, all);

        final OffsetFetchResponseData.OffsetFetchResponseTopics topic =
                fetched.groups().getFirst().topics().getFirst();
        assertThat(topic.name()).isEqualTo("orders");
        assertThat(topic.partitions().getFirst().committedOffset()).isEqualTo(3);
    }

    @Test
    void shouldAnswerUnknownTopicIdWhenFetchingOffsetsOfAnUnknownTopicId() throws Exception {
        final OffsetFetchRequestData byId = new OffsetFetchRequestData();
        final OffsetFetchRequestData.OffsetFetchRequestGroup group =
                new OffsetFetchRequestData.OffsetFetchRequestGroup().setGroupId("g");
        final Uuid unknown = Uuid.randomUuid();
        group.topics()
                .add(new OffsetFetchRequestData.OffsetFetchRequestTopics()
                        .setTopicId(unknown)
                        .setPartitionIndexes(List.of(0)));
        byId.groups().add(group);

        final OffsetFetchResponseData fetched =
                Requests.body(handler, ApiKeys.OFFSET_FETCH, ApiKeys.OFFSET_FETCH.latestVersion(), byId);

        final OffsetFetchResponseData.OffsetFetchResponseTopics topic =
                fetched.groups().getFirst().topics().getFirst();
        assertThat(topic.topicId()).isEqualTo(unknown);
        assertThat(topic.partitions().getFirst().errorCode()).isEqualTo(Errors.UNKNOWN_TOPIC_ID.code());
        assertThat(topic.partitions().getFirst().committedOffset()).isEqualTo(-1);
    }
}
