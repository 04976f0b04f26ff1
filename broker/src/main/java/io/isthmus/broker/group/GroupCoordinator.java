package io.isthmus.broker.group;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The classic consumer-group protocol (JoinGroup, SyncGroup, Heartbeat, LeaveGroup) and committed offsets,
 * for the groups of this single broker.
 *
 * <p>Each group is guarded by its own monitor, so groups never wait on each other. Rebalance and session
 * timers run on one scheduler thread. Committed offsets go to an {@link OffsetStore}, which makes them
 * durable before the commit is acknowledged.
 */
public final class GroupCoordinator implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(GroupCoordinator.class);
    private static final long SESSION_CHECK_INTERVAL_MS = 100;

    private final Map<String, ConsumerGroup> groups = new ConcurrentHashMap<>();
    private final OffsetStore offsets;
    private final GroupSettings settings;
    private final LongSupplier clockMs;
    private final ScheduledExecutorService scheduler;
    /** Whether this broker coordinates a group now: always on a single broker (see {@link #coordinateOnly}). */
    private volatile Predicate<String> coordinatesHere = groupId -> true;
    /** Where settled memberships are written (see {@link #persistMembershipWith}); nowhere on a single broker. */
    private volatile Function<GroupMembership, CompletableFuture<Void>> memberships =
            membership -> CompletableFuture.completedFuture(null);

    public GroupCoordinator(final OffsetStore offsets, final GroupSettings settings) {
        this(offsets, settings, System::currentTimeMillis);
    }

    GroupCoordinator(final OffsetStore offsets, final GroupSettings settings, final LongSupplier clockMs) {
        this.offsets = offsets;
        this.settings = settings;
        this.clockMs = clockMs;
        this.scheduler = Executors.newSingleThreadScheduledExecutor(runnable -> {
            final Thread thread = new Thread(runnable, "isthmus-group-coordinator");
            thread.setDaemon(true);
            return thread;
        });
        scheduler.scheduleWithFixedDelay(
                this::expireSessions, SESSION_CHECK_INTERVAL_MS, SESSION_CHECK_INTERVAL_MS, TimeUnit.MILLISECONDS);
    }

    /**
     * Settings of the coordinator, under Kafka's names.
     *
     * @param initialRebalanceDelayMs {@code group.initial.rebalance.delay.ms}
     * @param minSessionTimeoutMs {@code group.min.session.timeout.ms}
     * @param maxSessionTimeoutMs {@code group.max.session.timeout.ms}
     */
    public record GroupSettings(int initialRebalanceDelayMs, int minSessionTimeoutMs, int maxSessionTimeoutMs) {}

    /** A JoinGroup request, decoded. */
    public record JoinRequest(
            String groupId,
            String memberId,
            String groupInstanceId,
            String clientId,
            String clientHost,
            int sessionTimeoutMs,
            int rebalanceTimeoutMs,
            String protocolType,
            Map<String, byte[]> protocols,
            boolean requireKnownMemberId) {}

    public CompletableFuture<JoinResult> join(final JoinRequest request) {
        if (request.groupId() == null || request.groupId().isEmpty()) {
            return CompletableFuture.completedFuture(JoinResult.error(Errors.INVALID_GROUP_ID, request.memberId()));
        }
        if (request.sessionTimeoutMs() < settings.minSessionTimeoutMs()
                || request.sessionTimeoutMs() > settings.maxSessionTimeoutMs()) {
            return CompletableFuture.completedFuture(
                    JoinResult.error(Errors.INVALID_SESSION_TIMEOUT, request.memberId()));
        }
        final ConsumerGroup group = groups.computeIfAbsent(request.groupId(), ConsumerGroup::new);
        synchronized (group) {
            if (!stillCoordinated(group)) {
                return CompletableFuture.completedFuture(JoinResult.error(Errors.NOT_COORDINATOR, request.memberId()));
            }
            if (!group.supports(request.protocolType(), request.protocols().keySet())) {
                return CompletableFuture.completedFuture(
                        JoinResult.error(Errors.INCONSISTENT_GROUP_PROTOCOL, request.memberId()));
            }
            String memberId = request.memberId();
            if (memberId.isEmpty()) {
                memberId = request.clientId() + "-" + UUID.randomUUID();
                if (request.requireKnownMemberId()) {
                    // KIP-394: the member must come back with this id, so a lost response leaves no ghost.
                    group.addPendingMemberId(memberId);
                    return CompletableFuture.completedFuture(JoinResult.error(Errors.MEMBER_ID_REQUIRED, memberId));
                }
            } else if (group.member(memberId) == null && !group.hasPendingMemberId(memberId)) {
                return CompletableFuture.completedFuture(JoinResult.error(Errors.UNKNOWN_MEMBER_ID, memberId));
            }
            GroupMember member = group.member(memberId);
            if (member == null) {
                member = new GroupMember(memberId, request.groupInstanceId(), request.clientId(), request.clientHost());
                if (group.isEmpty()) {
                    group.protocolType = request.protocolType();
                }
                group.add(member);
            } else if (member.pendingJoin != null) {
                // A retried join replaces the one in flight.
                member.pendingJoin.complete(JoinResult.error(Errors.UNKNOWN_MEMBER_ID, memberId));
            }
            member.sessionTimeoutMs = request.sessionTimeoutMs();
            member.rebalanceTimeoutMs = request.rebalanceTimeoutMs();
            member.protocols = new LinkedHashMap<>(request.protocols());
            member.sessionDeadlineMs = clockMs.getAsLong() + member.sessionTimeoutMs;
            final CompletableFuture<JoinResult> result = new CompletableFuture<>();
            member.pendingJoin = result;
            switch (group.state) {
                case EMPTY, STABLE, COMPLETING_REBALANCE -> prepareRebalance(group, "member " + memberId + " joined");
                case PREPARING_REBALANCE -> {
                    if (group.allMembersJoined() && group.generationId > 0) {
                        completeJoin(group);
                    }
                }
            }
            return result;
        }
    }

    public CompletableFuture<SyncResult> sync(
            final String groupId,
            final int generationId,
            final String memberId,
            final Map<String, byte[]> assignments) {
        final ConsumerGroup group = groups.get(groupId);
        if (group == null) {
            return CompletableFuture.completedFuture(SyncResult.error(Errors.UNKNOWN_MEMBER_ID));
        }
        synchronized (group) {
            final GroupMember member = group.member(memberId);
            if (member == null) {
                return CompletableFuture.completedFuture(SyncResult.error(Errors.UNKNOWN_MEMBER_ID));
            }
            if (generationId != group.generationId) {
                return CompletableFuture.completedFuture(SyncResult.error(Errors.ILLEGAL_GENERATION));
            }
            member.sessionDeadlineMs = clockMs.getAsLong() + member.sessionTimeoutMs;
            switch (group.state) {
                case PREPARING_REBALANCE, EMPTY -> {
                    return CompletableFuture.completedFuture(SyncResult.error(Errors.REBALANCE_IN_PROGRESS));
                }
                case STABLE -> {
                    return CompletableFuture.completedFuture(
                            new SyncResult(Errors.NONE, group.protocolType, group.protocolName, member.assignment));
                }
                case COMPLETING_REBALANCE -> {
                    final CompletableFuture<SyncResult> result = new CompletableFuture<>();
                    member.pendingSync = result;
                    if (memberId.equals(group.leaderId) && !group.assignmentPending) {
                        group.assign(assignments);
                        group.assignmentPending = true;
                        settle(group);
                    }
                    return result;
                }
                default -> throw new IllegalStateException("unknown state=" + group.state);
            }
        }
    }

    public Errors heartbeat(final String groupId, final int generationId, final String memberId) {
        final ConsumerGroup group = groups.get(groupId);
        if (group == null) {
            return Errors.UNKNOWN_MEMBER_ID;
        }
        synchronized (group) {
            final GroupMember member = group.member(memberId);
            if (member == null) {
                return Errors.UNKNOWN_MEMBER_ID;
            }
            member.sessionDeadlineMs = clockMs.getAsLong() + member.sessionTimeoutMs;
            if (group.state == GroupState.PREPARING_REBALANCE) {
                return Errors.REBALANCE_IN_PROGRESS;
            }
            if (generationId != group.generationId) {
                return Errors.ILLEGAL_GENERATION;
            }
            return Errors.NONE;
        }
    }

    /** Removes members; returns each member id's outcome in request order. */
    public List<Errors> leave(final String groupId, final List<String> memberIds) {
        final ConsumerGroup group = groups.get(groupId);
        final List<Errors> outcomes = new ArrayList<>();
        if (group == null) {
            memberIds.forEach(id -> outcomes.add(Errors.UNKNOWN_MEMBER_ID));
            return outcomes;
        }
        synchronized (group) {
            boolean anyLeft = false;
            for (final String memberId : memberIds) {
                if (group.member(memberId) == null) {
                    outcomes.add(Errors.UNKNOWN_MEMBER_ID);
                } else {
                    group.remove(memberId);
                    outcomes.add(Errors.NONE);
                    anyLeft = true;
                }
            }
            if (anyLeft) {
                onMembershipShrunk(group, "members " + memberIds + " left");
            }
            return outcomes;
        }
    }

    /**
     * Commits offsets for a group member, or for a standalone consumer ({@code generationId < 0}, the
     * {@code assign()} case) while the group has no members. The member is checked now; the answer comes once the
     * store made the offsets durable (in a cluster, once the in-sync replicas of the group's {@code
     * __consumer_offsets} partition hold them), or with the store's error.
     */
    public CompletableFuture<Errors> commitOffsets(
            final String groupId,
            final int generationId,
            final String memberId,
            final Map<TopicPartition, CommittedOffset> committed) {
        if (groupId == null || groupId.isEmpty()) {
            return CompletableFuture.completedFuture(Errors.INVALID_GROUP_ID);
        }
        final ConsumerGroup group = groups.computeIfAbsent(groupId, ConsumerGroup::new);
        synchronized (group) {
            if (!stillCoordinated(group)) {
                return CompletableFuture.completedFuture(Errors.NOT_COORDINATOR);
            }
            if (generationId >= 0 || !group.isEmpty()) {
                final Errors error = checkMember(group, generationId, memberId);
                if (error != Errors.NONE) {
                    return CompletableFuture.completedFuture(error);
                }
            }
        }
        return offsets.commitAsync(groupId, committed).handle((ignored, failure) -> {
            if (failure == null) {
                return Errors.NONE;
            }
            final Throwable cause = unwrap(failure);
            final Errors error = Errors.forException(cause);
            if (error == Errors.UNKNOWN_SERVER_ERROR) {
                LOG.error("group={}: committing offsets failed", groupId, cause);
            }
            return error;
        });
    }

    /**
     * Makes this coordinator answer only for the groups {@code coordinatesHere} accepts, checked under each group's lock
     * when a request could create or join it: a cluster's broker coordinates only the groups of the {@code
     * __consumer_offsets} partitions it leads, and a request let in just before such a partition's leadership left
     * must not bring a group {@link #forgetGroups forgotten} meanwhile back to life here.
     */
    public void coordinateOnly(final Predicate<String> coordinatesHere) {
        this.coordinatesHere = coordinatesHere;
    }

    /**
     * Writes each group's membership with {@code store} whenever a generation becomes stable or the group empties, in
     * that order per group (a cluster's coordinator: to the group's {@code __consumer_offsets} partition), so that the
     * coordinator elected after this one can {@link #restore} it. A generation becomes stable only once its membership
     * is written (see {@link #settle}).
     */
    public void persistMembershipWith(final Function<GroupMembership, CompletableFuture<Void>> store) {
        this.memberships = store;
    }

    /**
     * Takes over groups whose memberships the previous coordinator wrote (this broker was just elected to coordinate
     * them): each is STABLE in its generation with its members, whose sessions start now, or EMPTY. A group this
     * coordinator already has members of is left as it is; an empty one is filled in place, under its lock, so that a
     * request holding it meanwhile still works on the group the map has.
     */
    public void restore(final Collection<GroupMembership> restored) {
        final long now = clockMs.getAsLong();
        for (final GroupMembership membership : restored) {
            final ConsumerGroup group = groups.computeIfAbsent(membership.groupId(), ConsumerGroup::new);
            synchronized (group) {
                if (group.isEmpty() && groups.get(membership.groupId()) == group) {
                    group.restoreFrom(membership, now);
                }
            }
        }
        if (!restored.isEmpty()) {
            LOG.info("restored the memberships of {} groups", restored.size());
        }
    }

    /**
     * Under the group's lock, the leader's assignment applied: the group becomes STABLE, and its members get their
     * parts, once its membership is written, as in Kafka, so no member works on an assignment a coordinator elected
     * after this one would not know. If it cannot be written, the members waiting are answered with the error and
     * rejoin; a membership too large for the log is not written, and the group goes on without it.
     */
    private void settle(final ConsumerGroup group) {
        final int generation = group.generationId;
        final GroupMembership membership = group.membership();
        memberships.apply(membership).whenComplete((ignored, failure) -> {
            synchronized (group) {
                if (group.generationId != generation
                        || group.state != GroupState.COMPLETING_REBALANCE
                        || !group.assignmentPending) {
                    return; // a rebalance began meanwhile, or the group moved away
                }
                final Errors error = failure == null ? Errors.NONE : Errors.forException(unwrap(failure));
                if (error != Errors.NONE && error != Errors.INVALID_COMMIT_OFFSET_SIZE) {
                    LOG.warn(
                            "group={} generation={}: membership not written, its members rejoin: {}",
                            group.groupId,
                            generation,
                            unwrap(failure).toString());
                    group.failPendingSyncs(
                            error == Errors.NOT_COORDINATOR
                                    ? Errors.NOT_COORDINATOR
                                    : Errors.COORDINATOR_NOT_AVAILABLE);
                    prepareRebalance(group, "its membership could not be written");
                    return;
                }
                if (error != Errors.NONE) {
                    LOG.warn(
                            "group={} generation={}: membership too large to write; a coordinator elected after this"
                                    + " one starts the group afresh: {}",
                            group.groupId,
                            generation,
                            unwrap(failure).getMessage());
                }
                group.stabilize();
                LOG.info(
                        "group={} generation={} is stable with members={}",
                        group.groupId,
                        generation,
                        group.members().size());
            }
        });
    }

    private static Throwable unwrap(final Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }

    /** Under the group's lock: hands its membership (an emptied group's) to the store; a failure is logged. */
    private void persist(final ConsumerGroup group) {
        final GroupMembership membership = group.membership();
        memberships.apply(membership).whenComplete((ignored, failure) -> {
            if (failure != null) {
                LOG.warn(
                        "group={} generation={}: membership not written (a coordinator elected after this one starts"
                                + " the group afresh): {}",
                        membership.groupId(),
                        membership.generationId(),
                        failure.toString());
            }
        });
    }

    /** Under the group's lock: false, with an empty group dropped again, if the group is coordinated elsewhere now. */
    private boolean stillCoordinated(final ConsumerGroup group) {
        if (coordinatesHere.test(group.groupId)) {
            return true;
        }
        if (group.isEmpty()) {
            groups.remove(group.groupId, group);
        }
        return false;
    }

    /**
     * Forgets the groups {@code coordinatedElsewhere} names (their coordinator moved to another broker): members
     * waiting in JoinGroup or SyncGroup are answered NOT_COORDINATOR, and each group's next request here starts it
     * afresh. Their committed offsets are the store's, and stay.
     */
    public void forgetGroups(final Predicate<String> coordinatedElsewhere) {
        for (final ConsumerGroup group : groups.values()) {
            if (!coordinatedElsewhere.test(group.groupId)) {
                continue;
            }
            synchronized (group) {
                groups.remove(group.groupId, group);
                if (group.rebalanceTimer != null) {
                    group.rebalanceTimer.cancel(false);
                    group.rebalanceTimer = null;
                }
                group.dissolve(Errors.NOT_COORDINATOR);
            }
        }
    }

    /**
     * Checks the committer of a TxnOffsetCommit (KIP-447): with a member id or a generation, the member must be
     * current, as for OffsetCommit; without either (a producer that passed only the group id), nothing is checked.
     * The offsets themselves are held by the transaction until it commits ({@link #commitTransactionalOffsets}).
     */
    public Errors checkTransactionalCommitter(final String groupId, final int generationId, final String memberId) {
        if (groupId == null || groupId.isEmpty()) {
            return Errors.INVALID_GROUP_ID;
        }
        if (generationId < 0 && (memberId == null || memberId.isEmpty())) {
            return Errors.NONE;
        }
        final ConsumerGroup group = groups.computeIfAbsent(groupId, ConsumerGroup::new);
        synchronized (group) {
            return checkMember(group, generationId, memberId);
        }
    }

    /** Stores offsets a committed transaction carried: the transaction's producer was checked when it sent them. */
    public void commitTransactionalOffsets(final String groupId, final Map<TopicPartition, CommittedOffset> committed) {
        offsets.commit(groupId, committed);
    }

    /** The committing member must be in the group's current generation, outside a rebalance's sync phase. */
    private Errors checkMember(final ConsumerGroup group, final int generationId, final String memberId) {
        final GroupMember member = group.member(memberId);
        if (member == null) {
            return Errors.UNKNOWN_MEMBER_ID;
        }
        if (generationId != group.generationId) {
            return Errors.ILLEGAL_GENERATION;
        }
        // As in Kafka: while PREPARING_REBALANCE the generation is still current, and an eager consumer
        // commits in onPartitionsRevoked before rejoining; after the join the new assignment is unknown.
        if (group.state == GroupState.COMPLETING_REBALANCE) {
            return Errors.REBALANCE_IN_PROGRESS;
        }
        member.sessionDeadlineMs = clockMs.getAsLong() + member.sessionTimeoutMs;
        return Errors.NONE;
    }

    public Map<TopicPartition, CommittedOffset> committedOffsets(final String groupId) {
        return offsets.committed(groupId);
    }

    /** A snapshot of one group, for DescribeGroups. */
    public record GroupDescription(
            String groupId,
            GroupState state,
            String protocolType,
            String protocolName,
            List<MemberDescription> members) {}

    public record MemberDescription(
            String memberId,
            String groupInstanceId,
            String clientId,
            String clientHost,
            byte[] metadata,
            byte[] assignment) {}

    public GroupDescription describe(final String groupId) {
        final ConsumerGroup group = groups.get(groupId);
        if (group == null) {
            return new GroupDescription(groupId, GroupState.EMPTY, "", "", List.of());
        }
        synchronized (group) {
            final List<MemberDescription> members = new ArrayList<>();
            for (final GroupMember member : group.members()) {
                members.add(new MemberDescription(
                        member.memberId,
                        member.groupInstanceId,
                        member.clientId,
                        member.clientHost,
                        group.protocolName == null
                                ? new byte[0]
                                : member.protocols.getOrDefault(group.protocolName, new byte[0]),
                        member.assignment));
            }
            return new GroupDescription(
                    groupId,
                    group.state,
                    group.protocolType == null ? "" : group.protocolType,
                    group.protocolName == null ? "" : group.protocolName,
                    members);
        }
    }

    /** Every group with members or committed offsets here (those with offsets only are EMPTY). */
    public List<GroupDescription> listGroups() {
        final Set<String> ids = new TreeSet<>(groups.keySet());
        ids.addAll(offsets.groupIds());
        final List<GroupDescription> all = new ArrayList<>();
        for (final String groupId : ids) {
            all.add(describe(groupId));
        }
        return all;
    }

    private void prepareRebalance(final ConsumerGroup group, final String reason) {
        if (group.state == GroupState.COMPLETING_REBALANCE || group.state == GroupState.STABLE) {
            group.failPendingSyncs();
        }
        final boolean firstJoinOfEmptyGroup = group.state == GroupState.EMPTY;
        group.state = GroupState.PREPARING_REBALANCE;
        LOG.info("group={} generation={} rebalancing: {}", group.groupId, group.generationId, reason);
        if (group.rebalanceTimer != null) {
            group.rebalanceTimer.cancel(false);
        }
        final long delayMs = firstJoinOfEmptyGroup ? settings.initialRebalanceDelayMs() : group.rebalanceTimeoutMs();
        if (!firstJoinOfEmptyGroup && group.allMembersJoined()) {
            completeJoin(group);
            return;
        }
        group.rebalanceTimer = scheduler.schedule(() -> onRebalanceTimer(group), delayMs, TimeUnit.MILLISECONDS);
    }

    private void onRebalanceTimer(final ConsumerGroup group) {
        synchronized (group) {
            if (group.state == GroupState.PREPARING_REBALANCE) {
                completeJoin(group);
            }
        }
    }

    private void completeJoin(final ConsumerGroup group) {
        if (group.rebalanceTimer != null) {
            group.rebalanceTimer.cancel(false);
            group.rebalanceTimer = null;
        }
        group.completeJoin();
        if (group.state == GroupState.EMPTY) {
            persist(group);
        }
        final long now = clockMs.getAsLong();
        for (final GroupMember member : group.members()) {
            member.sessionDeadlineMs = now + member.sessionTimeoutMs;
        }
        LOG.info(
                "group={} generation={} state={} leader={} members={} protocol={}",
                group.groupId,
                group.generationId,
                group.state,
                group.leaderId,
                group.members().size(),
                group.protocolName);
    }

    private void onMembershipShrunk(final ConsumerGroup group, final String reason) {
        switch (group.state) {
            case STABLE, COMPLETING_REBALANCE -> {
                if (group.isEmpty()) {
                    group.failPendingSyncs();
                    group.state = GroupState.EMPTY;
                    group.generationId++;
                    LOG.info("group={} is empty: {}", group.groupId, reason);
                    persist(group);
                } else {
                    prepareRebalance(group, reason);
                }
            }
            case PREPARING_REBALANCE -> {
                if (group.allMembersJoined()) {
                    completeJoin(group);
                }
            }
            case EMPTY -> {}
        }
    }

    private void expireSessions() {
        final long now = clockMs.getAsLong();
        for (final ConsumerGroup group : groups.values()) {
            synchronized (group) {
                final List<String> expired = new ArrayList<>();
                for (final GroupMember member : group.members()) {
                    // A member waiting in JoinGroup is bounded by the rebalance timeout instead.
                    if (!member.awaitingJoin() && member.sessionDeadlineMs < now) {
                        expired.add(member.memberId);
                    }
                }
                if (!expired.isEmpty()) {
                    expired.forEach(group::remove);
                    try {
                        onMembershipShrunk(group, "session of members " + expired + " expired");
                    } catch (final RuntimeException e) {
                        // A scheduled task that throws is never run again: one group's failure must not end every
                        // group's session expiry.
                        LOG.error("group={}: moving on after members {} expired failed", group.groupId, expired, e);
                    }
                }
            }
        }
    }

    /** Runs the session check now; for tests driving a manual clock. */
    void expireSessionsNow() {
        expireSessions();
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
    }
}
