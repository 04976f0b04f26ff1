package io.isthmus.broker.group;

import org.apache.kafka.common.protocol.Errors;

/** A SyncGroup answer: the member's assignment, as the leader computed it. */
public record SyncResult(Errors error, String protocolType, String protocolName, byte[] assignment) {
    static SyncResult error(final Errors error) {
        return new SyncResult(error, null, null, new byte[0]);
    }
}
