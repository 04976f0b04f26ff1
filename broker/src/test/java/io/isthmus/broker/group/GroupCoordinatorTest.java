package io.isthmus.broker.group;

import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.broker.group.GroupCoordinator.GroupDescription;
import io.isthmus.broker.group.GroupCoordinator.GroupSettings;
import io.isthmus.broker.group.GroupCoordinator.JoinRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GroupCoordinatorTest {
    private static final String GROUP = "group";
    private static final int SESSION_MS = 30_000;
    private static final int REBALANCE_MS = 60_000;
    private static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);

    @TempDir
    Path tmp;

    private final AtomicLong clock = new AtomicLong(1_000_000);
    private FileOffsetStore offsets;
    private GroupCoordinator coordinator;

    @BeforeEach
    void setUp() {
        offsets = FileOffsetStore.open(tmp);
        coordinator = new GroupCoordinator(offsets, new GroupSettings(0, 6_000, 300_000), clock::get);
    }

    @AfterEach
    void tearDown() {
        coordinator.close();
        offsets.close();
    }

    private static byte[] bytes(final String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static Map<String, byte[]> protocols(final String... names) {
        final Map<String, byte[]> protocols = new LinkedHashMap<>();
        for (final String name : names) {
            protocols.put(name, bytes("subscription-" + name));
        }
        return protocols;
    }

    private CompletableFuture<JoinResult> join(
            final String memberId, final int sessionMs, final boolean requireKnownMemberId, final String... protocols) {
        return coordinator.join(new JoinRequest(
                GROUP,
                memberId,
                null,
                "client",
                "/127.0.0.1",
                sessionMs,
                REBALANCE_MS,
                "consumer",
                protocols(protocols),
                requireKnownMemberId));
    }

    private static <T> T await(final CompletableFuture<T> future) throws Exception {
        return future.get(10, TimeUnit.SECONDS);
    }

    /** A member that joined the empty group alone and is stable at generation 1 with assignment "a". */
    private String stableSingleMember(final int sessionMs) throws Exception {
        final JoinResult joined = await(join("", sessionMs, false, "range"));
        assertThat(joined.error()).isEqualTo(Errors.NONE);
        final SyncResult synced = await(coordinator.sync(
                GROUP, joined.generationId(), joined.memberId(), Map.of(joined.memberId(), bytes("a"))));
        assertThat(synced.error()).isEqualTo(Errors.NONE);
        return joined.memberId();
    }

    /** Records every membership the coordinator writes, each written at once. */
    private List<GroupMembership> recordMemberships() {
        final List<GroupMembership> written = new java.util.concurrent.CopyOnWriteArrayList<>();
        coordinator.persistMembershipWith(membership -> {
            written.add(membership);
            return CompletableFuture.completedFuture(null);
        });
        return written;
    }

    /** The coordinator elected after this one, on another broker (the same offsets, the same clock). */
    private GroupCoordinator successor() {
        return new GroupCoordinator(offsets, new GroupSettings(0, 6_000, 300_000), clock::get);
    }

    /** A JoinGroup of {@code memberId} ("" for a new member) at {@code at}, subscribed to "range". */
    private static CompletableFuture<JoinResult> joinAt(final GroupCoordinator at, final String memberId) {
        return at.join(new JoinRequest(
                GROUP,
                memberId,
                null,
                "client",
                "/127.0.0.1",
                SESSION_MS,
                REBALANCE_MS,
                "consumer",
                protocols("range"),
                false));
    }

    private GroupState state() {
        return coordinator.describe(GROUP).state();
    }

    @Test
    void shouldRequireAMemberIdThenMakeTheOnlyMemberLeaderAndHandItsAssignment() throws Exception {
        final JoinResult required = await(join("", SESSION_MS, true, "range"));

        assertThat(required.error()).isEqualTo(Errors.MEMBER_ID_REQUIRED);
        assertThat(required.memberId()).startsWith("client-");

        final JoinResult joined = await(join(required.memberId(), SESSION_MS, true, "range"));

        assertThat(joined.error()).isEqualTo(Errors.NONE);
        assertThat(joined.generationId()).isEqualTo(1);
        assertThat(joined.memberId()).isEqualTo(required.memberId());
        assertThat(joined.leaderId()).isEqualTo(required.memberId());
        assertThat(joined.protocolType()).isEqualTo("consumer");
        assertThat(joined.protocolName()).isEqualTo("range");
        assertThat(joined.members()).singleElement().satisfies(member -> {
            assertThat(member.memberId()).isEqualTo(required.memberId());
            assertThat(member.metadata()).isEqualTo(bytes("subscription-range"));
        });
        assertThat(state()).isEqualTo(GroupState.COMPLETING_REBALANCE);

        final SyncResult synced =
                await(coordinator.sync(GROUP, 1, joined.memberId(), Map.of(joined.memberId(), bytes("assigned"))));

        assertThat(synced.error()).isEqualTo(Errors.NONE);
        assertThat(synced.assignment()).isEqualTo(bytes("assigned"));
        assertThat(synced.protocolName()).isEqualTo("range");
        final GroupDescription described = coordinator.describe(GROUP);
        assertThat(described.state()).isEqualTo(GroupState.STABLE);
        assertThat(described.members()).singleElement().satisfies(m -> {
            assertThat(m.assignment()).isEqualTo(bytes("assigned"));
            assertThat(m.clientHost()).isEqualTo("/127.0.0.1");
        });
    }

    @Test
    void shouldHandOutAMemberIdAtOnceToClientsBeforeKip394() throws Exception {
        final JoinResult joined = await(join("", SESSION_MS, false, "range"));

        assertThat(joined.error()).isEqualTo(Errors.NONE);
        assertThat(joined.memberId()).startsWith("client-");
        assertThat(joined.leaderId()).isEqualTo(joined.memberId());
    }

    @Test
    void shouldRebalanceWhenASecondMemberJoins() throws Exception {
        final String first = stableSingleMember(SESSION_MS);

        final CompletableFuture<JoinResult> secondJoin = join("", SESSION_MS, false, "range");

        assertThat(secondJoin).isNotDone();
        assertThat(state()).isEqualTo(GroupState.PREPARING_REBALANCE);
        assertThat(coordinator.heartbeat(GROUP, 1, first)).isEqualTo(Errors.REBALANCE_IN_PROGRESS);

        final JoinResult firstRejoin = await(join(first, SESSION_MS, false, "range"));
        final JoinResult second = await(secondJoin);

        assertThat(firstRejoin.error()).isEqualTo(Errors.NONE);
        assertThat(second.error()).isEqualTo(Errors.NONE);
        assertThat(firstRejoin.generationId()).isEqualTo(2);
        assertThat(second.generationId()).isEqualTo(2);
        assertThat(firstRejoin.leaderId()).isEqualTo(first);
        assertThat(second.leaderId()).isEqualTo(first);
        assertThat(firstRejoin.members())
                .extracting(JoinResult.Member::memberId)
                .containsExactlyInAnyOrder(first, second.memberId());
        assertThat(second.members()).isEmpty();

        final CompletableFuture<SyncResult> followerSync = coordinator.sync(GROUP, 2, second.memberId(), Map.of());
        assertThat(followerSync).isNotDone();
        final SyncResult leaderSync =
                await(coordinator.sync(GROUP, 2, first, Map.of(first, bytes("p0"), second.memberId(), bytes("p1"))));

        assertThat(leaderSync.assignment()).isEqualTo(bytes("p0"));
        assertThat(await(followerSync).assignment()).isEqualTo(bytes("p1"));
        assertThat(coordinator.heartbeat(GROUP, 2, first)).isEqualTo(Errors.NONE);
        assertThat(coordinator.heartbeat(GROUP, 2, second.memberId())).isEqualTo(Errors.NONE);
    }

    @Test
    void shouldFailAWaitingSyncWhenANewRebalanceStarts() throws Exception {
        final String first = stableSingleMember(SESSION_MS);
        final CompletableFuture<JoinResult> secondJoin = join("", SESSION_MS, false, "range");
        await(join(first, SESSION_MS, false, "range"));
        final JoinResult second = await(secondJoin);
        final CompletableFuture<SyncResult> followerSync = coordinator.sync(GROUP, 2, second.memberId(), Map.of());

        final CompletableFuture<JoinResult> third = join("", SESSION_MS, false, "range");

        assertThat(await(followerSync).error()).isEqualTo(Errors.REBALANCE_IN_PROGRESS);
        assertThat(third).isNotDone();
    }

    @Test
    void shouldAnswerIllegalGenerationForAnOldGeneration() throws Exception {
        final String member = stableSingleMember(SESSION_MS);

        assertThat(coordinator.heartbeat(GROUP, 0, member)).isEqualTo(Errors.ILLEGAL_GENERATION);
        assertThat(await(coordinator.sync(GROUP, 7, member, Map.of())).error()).isEqualTo(Errors.ILLEGAL_GENERATION);
        assertThat(coordinator
                        .commitOffsets(GROUP, 0, member, Map.of(ORDERS_0, new CommittedOffset(1, 0, "", 1)))
                        .join())
                .isEqualTo(Errors.ILLEGAL_GENERATION);
        assertThat(coordinator.committedOffsets(GROUP)).isEmpty();
    }

    @Test
    void shouldAnswerUnknownMemberId() throws Exception {
        stableSingleMember(SESSION_MS);

        assertThat(coordinator.heartbeat(GROUP, 1, "stranger")).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
        assertThat(coordinator.heartbeat("no-such-group", 1, "stranger")).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
        assertThat(await(coordinator.sync(GROUP, 1, "stranger", Map.of())).error())
                .isEqualTo(Errors.UNKNOWN_MEMBER_ID);
        assertThat(await(join("stranger", SESSION_MS, true, "range")).error()).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
        assertThat(coordinator.leave(GROUP, java.util.List.of("stranger"))).containsExactly(Errors.UNKNOWN_MEMBER_ID);
    }

    @Test
    void shouldRebalanceWhenASessionExpires() throws Exception {
        final String longLived = stableSingleMember(SESSION_MS);
        final CompletableFuture<JoinResult> shortJoin = join("", 6_000, false, "range");
        await(join(longLived, SESSION_MS, false, "range"));
        final String shortLived = await(shortJoin).memberId();
        final CompletableFuture<SyncResult> followerSync = coordinator.sync(GROUP, 2, shortLived, Map.of());
        await(coordinator.sync(GROUP, 2, longLived, Map.of()));
        await(followerSync);
        assertThat(state()).isEqualTo(GroupState.STABLE);

        clock.addAndGet(7_000);
        coordinator.expireSessionsNow();

        assertThat(coordinator.describe(GROUP).members())
                .extracting(GroupCoordinator.MemberDescription::memberId)
                .containsExactly(longLived);
        assertThat(state()).isEqualTo(GroupState.PREPARING_REBALANCE);
        assertThat(coordinator.heartbeat(GROUP, 2, shortLived)).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
        assertThat(coordinator.heartbeat(GROUP, 2, longLived)).isEqualTo(Errors.REBALANCE_IN_PROGRESS);

        final JoinResult rejoined = await(join(longLived, SESSION_MS, false, "range"));

        assertThat(rejoined.generationId()).isEqualTo(3);
        assertThat(rejoined.members()).extracting(JoinResult.Member::memberId).containsExactly(longLived);
    }

    @Test
    void shouldKeepAMemberWhoseHeartbeatsArriveInTime() throws Exception {
        final String member = stableSingleMember(6_000);

        for (int i = 0; i < 5; i++) {
            clock.addAndGet(5_000);
            assertThat(coordinator.heartbeat(GROUP, 1, member)).isEqualTo(Errors.NONE);
            coordinator.expireSessionsNow();
        }

        assertThat(state()).isEqualTo(GroupState.STABLE);
        clock.addAndGet(6_001);
        coordinator.expireSessionsNow();
        assertThat(state()).isEqualTo(GroupState.EMPTY);
        assertThat(coordinator.describe(GROUP).members()).isEmpty();
    }

    @Test
    void shouldRebalanceWhenAMemberLeavesAndEmptyWhenTheLastOneDoes() throws Exception {
        final String first = stableSingleMember(SESSION_MS);
        final CompletableFuture<JoinResult> secondJoin = join("", SESSION_MS, false, "range");
        await(join(first, SESSION_MS, false, "range"));
        final String second = await(secondJoin).memberId();
        final CompletableFuture<SyncResult> secondSync = coordinator.sync(GROUP, 2, second, Map.of());
        await(coordinator.sync(GROUP, 2, first, Map.of()));
        await(secondSync);

        assertThat(coordinator.leave(GROUP, java.util.List.of(second, "stranger")))
                .containsExactly(Errors.NONE, Errors.UNKNOWN_MEMBER_ID);

        assertThat(coordinator.heartbeat(GROUP, 2, first)).isEqualTo(Errors.REBALANCE_IN_PROGRESS);
        final JoinResult rejoined = await(join(first, SESSION_MS, false, "range"));
        assertThat(rejoined.generationId()).isEqualTo(3);
        assertThat(rejoined.members()).hasSize(1);

        assertThat(coordinator.leave(GROUP, java.util.List.of(first))).containsExactly(Errors.NONE);
        assertThat(state()).isEqualTo(GroupState.EMPTY);
    }

    @Test
    void shouldRefuseAMemberWithoutAProtocolInCommon() throws Exception {
        stableSingleMember(SESSION_MS);

        assertThat(await(join("", SESSION_MS, false, "roundrobin")).error())
                .isEqualTo(Errors.INCONSISTENT_GROUP_PROTOCOL);
        final JoinResult otherType = await(coordinator.join(new JoinRequest(
                GROUP, "", null, "client", "/h", SESSION_MS, REBALANCE_MS, "connect", protocols("range"), false)));
        assertThat(otherType.error()).isEqualTo(Errors.INCONSISTENT_GROUP_PROTOCOL);
        assertThat(state()).isEqualTo(GroupState.STABLE);
    }

    @Test
    void shouldRefuseAFirstMemberWithoutProtocols() throws Exception {
        assertThat(await(join("", SESSION_MS, false)).error()).isEqualTo(Errors.INCONSISTENT_GROUP_PROTOCOL);
    }

    @Test
    void shouldElectTheProtocolEveryMemberSupportsByVote() throws Exception {
        final String first =
                await(join("", SESSION_MS, false, "sticky", "range")).memberId();
        await(coordinator.sync(GROUP, 1, first, Map.of()));
        final CompletableFuture<JoinResult> second = join("", SESSION_MS, false, "range", "roundrobin");

        final JoinResult leader = await(join(first, SESSION_MS, false, "sticky", "range"));

        assertThat(leader.protocolName()).isEqualTo("range");
        assertThat(await(second).protocolName()).isEqualTo("range");
        assertThat(leader.members()).allSatisfy(m -> assertThat(m.metadata()).isEqualTo(bytes("subscription-range")));
    }

    @Test
    void shouldRefuseASessionTimeoutOutsideTheConfiguredRange() throws Exception {
        assertThat(await(join("", 5_999, false, "range")).error()).isEqualTo(Errors.INVALID_SESSION_TIMEOUT);
        assertThat(await(join("", 300_001, false, "range")).error()).isEqualTo(Errors.INVALID_SESSION_TIMEOUT);
        assertThat(coordinator.describe(GROUP).members()).isEmpty();
    }

    @Test
    void shouldRefuseAnEmptyGroupId() throws Exception {
        final JoinResult joined = await(coordinator.join(new JoinRequest(
                "", "", null, "client", "/h", SESSION_MS, REBALANCE_MS, "consumer", protocols("range"), false)));

        assertThat(joined.error()).isEqualTo(Errors.INVALID_GROUP_ID);
        assertThat(coordinator.commitOffsets("", -1, "", Map.of()).join()).isEqualTo(Errors.INVALID_GROUP_ID);
    }

    @Test
    void shouldAcceptStandaloneCommitsOnlyWhileTheGroupIsEmpty() throws Exception {
        final Map<TopicPartition, CommittedOffset> offset = Map.of(ORDERS_0, new CommittedOffset(5, 0, "m", 1));

        assertThat(coordinator.commitOffsets(GROUP, -1, "", offset).join()).isEqualTo(Errors.NONE);
        assertThat(coordinator.committedOffsets(GROUP)).isEqualTo(offset);

        final String member = stableSingleMember(SESSION_MS);
        final Map<TopicPartition, CommittedOffset> later = Map.of(ORDERS_0, new CommittedOffset(9, 0, "", 2));

        assertThat(coordinator.commitOffsets(GROUP, -1, "", later).join()).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
        assertThat(coordinator.committedOffsets(GROUP)).isEqualTo(offset);
        assertThat(coordinator.commitOffsets(GROUP, 1, member, later).join()).isEqualTo(Errors.NONE);
        assertThat(coordinator.committedOffsets(GROUP)).isEqualTo(later);
    }

    @Test
    void shouldAcceptACommitOfTheCurrentGenerationWhileARebalanceIsPreparing() throws Exception {
        final String first = stableSingleMember(SESSION_MS);
        join("", SESSION_MS, false, "range");
        assertThat(state()).isEqualTo(GroupState.PREPARING_REBALANCE);
        final Map<TopicPartition, CommittedOffset> offset = Map.of(ORDERS_0, new CommittedOffset(7, 0, "", 1));

        // An eager consumer commits in onPartitionsRevoked before it rejoins; Kafka accepts that commit.
        assertThat(coordinator.commitOffsets(GROUP, 1, first, offset).join()).isEqualTo(Errors.NONE);
        assertThat(coordinator.committedOffsets(GROUP)).isEqualTo(offset);
    }

    @Test
    void shouldRefuseACommitWhileTheGenerationAwaitsItsAssignment() throws Exception {
        final JoinResult joined = await(join("", SESSION_MS, false, "range"));
        assertThat(state()).isEqualTo(GroupState.COMPLETING_REBALANCE);

        final Errors outcome = coordinator
                .commitOffsets(
                        GROUP,
                        joined.generationId(),
                        joined.memberId(),
                        Map.of(ORDERS_0, new CommittedOffset(7, 0, "", 1)))
                .join();

        assertThat(outcome).isEqualTo(Errors.REBALANCE_IN_PROGRESS);
        assertThat(coordinator.committedOffsets(GROUP)).isEmpty();
    }

    @Test
    void shouldListGroupsWithTheirState() throws Exception {
        stableSingleMember(SESSION_MS);
        coordinator
                .commitOffsets("standalone", -1, "", Map.of(ORDERS_0, new CommittedOffset(1, 0, "", 1)))
                .join();

        assertThat(coordinator.listGroups())
                .extracting(GroupDescription::groupId, GroupDescription::state)
                .containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple(GROUP, GroupState.STABLE),
                        org.assertj.core.groups.Tuple.tuple("standalone", GroupState.EMPTY));
    }

    @Test
    void shouldListAGroupKnownOnlyByItsCommittedOffsetsAsEmpty() throws Exception {
        coordinator
                .commitOffsets("standalone", -1, "", Map.of(ORDERS_0, new CommittedOffset(1, 0, "", 1)))
                .join();
        // A coordinator that has the store's offsets but never saw the group (a restart, or a failover in a cluster).
        try (GroupCoordinator successor = new GroupCoordinator(offsets, new GroupSettings(0, 6_000, 300_000))) {
            assertThat(successor.listGroups())
                    .extracting(GroupDescription::groupId, GroupDescription::state, GroupDescription::protocolType)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("standalone", GroupState.EMPTY, ""));
        }
    }

    @Test
    void aGroupCoordinatedElsewhereNowIsNeitherJoinedNorCommittedNorBroughtBackAfterItWasForgotten() throws Exception {
        final JoinResult joined = await(join("", SESSION_MS, false, "range"));
        assertThat(joined.error()).isEqualTo(Errors.NONE);
        // Its partition's leadership leaves: the coordinator is told, and forgets the group.
        coordinator.coordinateOnly(groupId -> !groupId.equals(GROUP));
        coordinator.forgetGroups(GROUP::equals);

        // A join let in just before (the handler's check passed) does not bring it back.
        final JoinResult late = await(join("", SESSION_MS, false, "range"));
        assertThat(late.error()).isEqualTo(Errors.NOT_COORDINATOR);
        assertThat(coordinator
                        .commitOffsets(GROUP, -1, "", Map.of(ORDERS_0, new CommittedOffset(3, 0, "", 1)))
                        .join())
                .isEqualTo(Errors.NOT_COORDINATOR);
        assertThat(coordinator.listGroups())
                .extracting(GroupDescription::groupId)
                .doesNotContain(GROUP);
        assertThat(coordinator.committedOffsets(GROUP)).isEmpty();
    }

    @Test
    void aSettledMembershipIsWrittenAndAnotherCoordinatorRestoresTheGroupWithoutARebalance() throws Exception {
        final List<GroupMembership> written = recordMemberships();
        final String member = stableSingleMember(SESSION_MS);
        assertThat(written).singleElement().satisfies(membership -> {
            assertThat(membership.generationId()).isEqualTo(1);
            assertThat(membership.protocolType()).isEqualTo("consumer");
            assertThat(membership.protocolName()).isEqualTo("range");
            assertThat(membership.leaderId()).isEqualTo(member);
            assertThat(membership.members()).singleElement().satisfies(m -> {
                assertThat(m.memberId()).isEqualTo(member);
                assertThat(m.subscription()).isEqualTo(bytes("subscription-range"));
                assertThat(m.assignment()).isEqualTo(bytes("a"));
                assertThat(m.sessionTimeoutMs()).isEqualTo(SESSION_MS);
            });
        });

        // The coordinator elected after this one, on another broker.
        try (GroupCoordinator successor = successor()) {
            successor.restore(List.of(written.getLast()));

            assertThat(successor.heartbeat(GROUP, 1, member))
                    .as("the member goes on in its generation")
                    .isEqualTo(Errors.NONE);
            assertThat(successor.describe(GROUP).state()).isEqualTo(GroupState.STABLE);
            final SyncResult again = await(successor.sync(GROUP, 1, member, Map.of()));
            assertThat(again.assignment()).isEqualTo(bytes("a"));
            assertThat(await(successor.commitOffsets(
                            GROUP, 1, member, Map.of(ORDERS_0, new CommittedOffset(5, -1, "", clock.get())))))
                    .isEqualTo(Errors.NONE);

            // A second member joins the restored group: a rebalance over both, as on the first coordinator.
            final CompletableFuture<JoinResult> second = joinAt(successor, "");
            assertThat(successor.heartbeat(GROUP, 1, member)).isEqualTo(Errors.REBALANCE_IN_PROGRESS);
            final CompletableFuture<JoinResult> rejoined = joinAt(successor, member);
            assertThat(await(rejoined).generationId()).isEqualTo(2);
            assertThat(await(second).generationId()).isEqualTo(2);
        }
    }

    @Test
    void aGroupThatEmptiesIsWrittenEmptySoThatNoCoordinatorBringsItsMembersBack() throws Exception {
        final List<GroupMembership> written = recordMemberships();
        final String member = stableSingleMember(SESSION_MS);
        coordinator.leave(GROUP, List.of(member));

        assertThat(written).hasSize(2);
        assertThat(written.getLast().members()).isEmpty();
        try (GroupCoordinator successor = successor()) {
            successor.restore(List.of(written.getLast()));
            assertThat(successor.describe(GROUP).state()).isEqualTo(GroupState.EMPTY);
            assertThat(successor.heartbeat(GROUP, 1, member)).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
            final JoinResult next = await(joinAt(successor, ""));
            assertThat(next.generationId())
                    .as("the generation goes on from the one written")
                    .isEqualTo(written.getLast().generationId() + 1);
        }
    }

    @Test
    void theMembersOfANewGenerationGetTheirAssignmentsOnlyOnceItsMembershipIsWritten() throws Exception {
        final java.util.concurrent.atomic.AtomicReference<CompletableFuture<Void>> write =
                new java.util.concurrent.atomic.AtomicReference<>();
        coordinator.persistMembershipWith(membership -> {
            final CompletableFuture<Void> pending = new CompletableFuture<>();
            write.set(pending);
            return pending;
        });
        final JoinResult joined = await(join("", SESSION_MS, false, "range"));
        final CompletableFuture<SyncResult> synced = coordinator.sync(
                GROUP, joined.generationId(), joined.memberId(), Map.of(joined.memberId(), bytes("a")));

        assertThat(synced).as("answered before the membership is durable").isNotDone();
        assertThat(state()).isEqualTo(GroupState.COMPLETING_REBALANCE);
        write.get().complete(null);
        assertThat(await(synced).assignment()).isEqualTo(bytes("a"));
        assertThat(state()).isEqualTo(GroupState.STABLE);

        // The next generation's membership cannot be written: its members are told, and rejoin.
        final CompletableFuture<JoinResult> rejoin = join(joined.memberId(), SESSION_MS, false, "range");
        final JoinResult second = await(rejoin);
        final CompletableFuture<SyncResult> failed = coordinator.sync(
                GROUP, second.generationId(), second.memberId(), Map.of(second.memberId(), bytes("b")));
        write.get().completeExceptionally(new org.apache.kafka.common.errors.NotEnoughReplicasException("one in sync"));
        assertThat(await(failed).error()).isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE);
        assertThat(state()).isEqualTo(GroupState.PREPARING_REBALANCE);
    }
}
