package io.isthmus.broker.group;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/** One member of a classic group; guarded by its group's lock. */
final class GroupMember {
    final String memberId;
    final String groupInstanceId;
    final String clientId;
    final String clientHost;
    int sessionTimeoutMs;
    int rebalanceTimeoutMs;
    /** Protocol name to the member's subscription metadata, in the member's order of preference. */
    Map<String, byte[]> protocols = new LinkedHashMap<>();

    byte[] assignment = new byte[0];
    long sessionDeadlineMs;
    CompletableFuture<JoinResult> pendingJoin;
    CompletableFuture<SyncResult> pendingSync;

    GroupMember(final String memberId, final String groupInstanceId, final String clientId, final String clientHost) {
        this.memberId = memberId;
        this.groupInstanceId = groupInstanceId;
        this.clientId = clientId;
        this.clientHost = clientHost;
    }

    boolean awaitingJoin() {
        return pendingJoin != null;
    }
}
