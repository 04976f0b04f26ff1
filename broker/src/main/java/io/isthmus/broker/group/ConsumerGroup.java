package io.isthmus.broker.group;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ScheduledFuture;
import org.apache.kafka.common.protocol.Errors;

/**
 * One classic group's membership and generation: the state machine of {@link GroupState}.
 *
 * <p>Every method must be called with the group's monitor held; {@link GroupCoordinator} does that. Futures
 * are completed after the state change, inside the monitor, so an answer never describes a state the group
 * has already left.
 */
final class ConsumerGroup {
    final String groupId;
    private final Map<String, GroupMember> members = new LinkedHashMap<>();
    /** Member ids handed out with MEMBER_ID_REQUIRED that have not joined with them yet. */
    private final Set<String> pendingMemberIds = new HashSet<>();

    GroupState state = GroupState.EMPTY;
    int generationId;
    String protocolType;
    String protocolName;
    String leaderId;
    ScheduledFuture<?> rebalanceTimer;
    /** The leader's assignment is applied and its membership being written: the group is stable once it is. */
    boolean assignmentPending;

    ConsumerGroup(final String groupId) {
        this.groupId = groupId;
    }

    GroupMember member(final String memberId) {
        return members.get(memberId);
    }

    Collection<GroupMember> members() {
        return members.values();
    }

    boolean isEmpty() {
        return members.isEmpty();
    }

    boolean hasPendingMemberId(final String memberId) {
        return pendingMemberIds.contains(memberId);
    }

    void addPendingMemberId(final String memberId) {
        pendingMemberIds.add(memberId);
    }

    void add(final GroupMember member) {
        pendingMemberIds.remove(member.memberId);
        members.put(member.memberId, member);
        if (leaderId == null) {
            leaderId = member.memberId;
        }
    }

    void remove(final String memberId) {
        final GroupMember removed = members.remove(memberId);
        if (removed == null) {
            return;
        }
        if (removed.pendingJoin != null) {
            removed.pendingJoin.complete(JoinResult.error(Errors.UNKNOWN_MEMBER_ID, memberId));
        }
        if (removed.pendingSync != null) {
            removed.pendingSync.complete(SyncResult.error(Errors.UNKNOWN_MEMBER_ID));
        }
        if (memberId.equals(leaderId)) {
            leaderId = members.isEmpty() ? null : members.keySet().iterator().next();
        }
    }

    /** Whether a member with these protocols could join: same protocol type, one protocol in common. */
    boolean supports(final String memberProtocolType, final Set<String> memberProtocols) {
        if (members.isEmpty()) {
            return !memberProtocols.isEmpty();
        }
        if (!memberProtocolType.equals(protocolType)) {
            return false;
        }
        for (final String candidate : memberProtocols) {
            if (members.values().stream().allMatch(m -> m.protocols.containsKey(candidate))) {
                return true;
            }
        }
        return false;
    }

    boolean allMembersJoined() {
        return members.values().stream().allMatch(GroupMember::awaitingJoin);
    }

    int rebalanceTimeoutMs() {
        int timeout = 0;
        for (final GroupMember member : members.values()) {
            timeout = Math.max(timeout, member.rebalanceTimeoutMs);
        }
        return timeout;
    }

    /**
     * Ends PREPARING_REBALANCE: drops members that did not rejoin, starts the next generation, picks the
     * protocol and answers every waiting JoinGroup.
     */
    void completeJoin() {
        final List<String> absent = new ArrayList<>();
        for (final GroupMember member : members.values()) {
            if (!member.awaitingJoin()) {
                absent.add(member.memberId);
            }
        }
        absent.forEach(this::remove);
        generationId++;
        if (members.isEmpty()) {
            state = GroupState.EMPTY;
            protocolName = null;
            return;
        }
        protocolName = electProtocol();
        state = GroupState.COMPLETING_REBALANCE;
        final List<JoinResult.Member> subscriptions = new ArrayList<>();
        for (final GroupMember member : members.values()) {
            subscriptions.add(
                    new JoinResult.Member(member.memberId, member.groupInstanceId, member.protocols.get(protocolName)));
        }
        for (final GroupMember member : members.values()) {
            final boolean leader = member.memberId.equals(leaderId);
            final JoinResult result = new JoinResult(
                    Errors.NONE,
                    generationId,
                    protocolType,
                    protocolName,
                    leaderId,
                    member.memberId,
                    leader ? subscriptions : List.of());
            final var join = member.pendingJoin;
            member.pendingJoin = null;
            join.complete(result);
        }
    }

    /** Kafka's vote: each member votes for its most preferred protocol that every member supports. */
    private String electProtocol() {
        final Map<String, Integer> votes = new LinkedHashMap<>();
        for (final GroupMember member : members.values()) {
            for (final String candidate : member.protocols.keySet()) {
                if (members.values().stream().allMatch(m -> m.protocols.containsKey(candidate))) {
                    votes.merge(candidate, 1, Integer::sum);
                    break;
                }
            }
        }
        return votes.entrySet().stream()
                .max(Map.Entry.comparingByValue())
                .orElseThrow(() -> new IllegalStateException("no common protocol in group=" + groupId))
                .getKey();
    }

    /** The leader's assignment: every member's part, handed out once the group is {@link #stabilize stable}. */
    void assign(final Map<String, byte[]> assignments) {
        for (final GroupMember member : members.values()) {
            member.assignment = assignments.getOrDefault(member.memberId, new byte[0]);
        }
    }

    /** Ends COMPLETING_REBALANCE: every member waiting in SyncGroup gets its part of the assignment. */
    void stabilize() {
        assignmentPending = false;
        state = GroupState.STABLE;
        for (final GroupMember member : members.values()) {
            if (member.pendingSync != null) {
                final var sync = member.pendingSync;
                member.pendingSync = null;
                sync.complete(new SyncResult(Errors.NONE, protocolType, protocolName, member.assignment));
            }
        }
    }

    /** Leaving STABLE or COMPLETING_REBALANCE: members waiting for an assignment must rejoin. */
    void failPendingSyncs() {
        failPendingSyncs(Errors.REBALANCE_IN_PROGRESS);
    }

    /** Members waiting for an assignment get {@code error}, and the assignment is dropped. */
    void failPendingSyncs(final Errors error) {
        assignmentPending = false;
        for (final GroupMember member : members.values()) {
            if (member.pendingSync != null) {
                final var sync = member.pendingSync;
                member.pendingSync = null;
                sync.complete(SyncResult.error(error));
            }
        }
    }

    /** This group's settled membership: its generation, protocol, members, their subscriptions and assignments. */
    GroupMembership membership() {
        final List<GroupMembership.Member> settled = new ArrayList<>();
        for (final GroupMember member : members.values()) {
            settled.add(new GroupMembership.Member(
                    member.memberId,
                    member.groupInstanceId,
                    member.clientId,
                    member.clientHost,
                    member.sessionTimeoutMs,
                    member.rebalanceTimeoutMs,
                    protocolName == null ? new byte[0] : member.protocols.getOrDefault(protocolName, new byte[0]),
                    member.assignment));
        }
        return new GroupMembership(groupId, protocolType, generationId, protocolName, leaderId, settled);
    }

    /**
     * Makes this group, which must be empty, the one a membership written by its previous coordinator describes: STABLE
     * in that generation with those members (each subscribed to the chosen protocol, its session starting at {@code
     * nowMs}), or EMPTY in that generation.
     */
    void restoreFrom(final GroupMembership membership, final long nowMs) {
        if (!members.isEmpty()) {
            throw new IllegalStateException("group=" + groupId + " has members; it cannot be restored over");
        }
        generationId = membership.generationId();
        protocolType = membership.protocolType();
        if (membership.members().isEmpty() || membership.protocolName() == null) {
            return;
        }
        for (final GroupMembership.Member settled : membership.members()) {
            final GroupMember member = new GroupMember(
                    settled.memberId(), settled.groupInstanceId(), settled.clientId(), settled.clientHost());
            member.sessionTimeoutMs = settled.sessionTimeoutMs();
            member.rebalanceTimeoutMs = settled.rebalanceTimeoutMs();
            member.protocols = new LinkedHashMap<>(Map.of(membership.protocolName(), settled.subscription()));
            member.assignment = settled.assignment();
            member.sessionDeadlineMs = nowMs + settled.sessionTimeoutMs();
            members.put(member.memberId, member);
        }
        protocolName = membership.protocolName();
        leaderId = membership.leaderId();
        state = GroupState.STABLE;
    }

    /** The group is no longer coordinated here: every member waiting in JoinGroup or SyncGroup gets {@code error}. */
    void dissolve(final Errors error) {
        for (final GroupMember member : members.values()) {
            if (member.pendingJoin != null) {
                final var join = member.pendingJoin;
                member.pendingJoin = null;
                join.complete(JoinResult.error(error, member.memberId));
            }
            if (member.pendingSync != null) {
                final var sync = member.pendingSync;
                member.pendingSync = null;
                sync.complete(SyncResult.error(error));
            }
        }
        members.clear();
        pendingMemberIds.clear();
        leaderId = null;
        state = GroupState.EMPTY;
    }
}
