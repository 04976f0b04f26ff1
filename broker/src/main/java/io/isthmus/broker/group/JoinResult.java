package io.isthmus.broker.group;

import java.util.List;
import org.apache.kafka.common.protocol.Errors;

/**
 * A JoinGroup answer. Only the leader gets the members' subscriptions.
 *
 * @param members for the leader, every member with its metadata for the chosen protocol; empty otherwise
 */
public record JoinResult(
        Errors error,
        int generationId,
        String protocolType,
        String protocolName,
        String leaderId,
        String memberId,
        List<Member> members) {
    public record Member(String memberId, String groupInstanceId, byte[] metadata) {}

    public static JoinResult error(final Errors error, final String memberId) {
        return new JoinResult(error, -1, null, null, "", memberId, List.of());
    }
}
