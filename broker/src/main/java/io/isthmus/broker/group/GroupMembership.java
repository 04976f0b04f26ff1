package io.isthmus.broker.group;

import java.util.List;

/**
 * A classic group's membership as its coordinator settled it: the generation, the protocol chosen, and each member
 * with its subscription to that protocol and its assignment (Kafka's {@code GroupMetadataValue}). A cluster's group
 * coordinator writes it to the group's {@code __consumer_offsets} partition whenever a generation becomes stable or
 * the group empties, and the coordinator elected after it restores the group from it, so that a coordinator's move
 * costs the group no rebalance: its members go on heartbeating in the same generation.
 *
 * @param protocolName null for a group without a generation in progress (empty)
 * @param leaderId null for an empty group
 */
public record GroupMembership(
        String groupId,
        String protocolType,
        int generationId,
        String protocolName,
        String leaderId,
        List<Member> members) {

    public GroupMembership {
        members = List.copyOf(members);
    }

    /**
     * One member of the generation.
     *
     * @param groupInstanceId null for a dynamic member
     */
    public record Member(
            String memberId,
            String groupInstanceId,
            String clientId,
            String clientHost,
            int sessionTimeoutMs,
            int rebalanceTimeoutMs,
            byte[] subscription,
            byte[] assignment) {}
}
