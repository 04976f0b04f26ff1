package io.isthmus.broker.network;

import io.netty.channel.DefaultMessageSizeEstimator;
import io.netty.channel.FileRegion;
import io.netty.channel.MessageSizeEstimator;

/**
 * Sizes outbound messages for the channel's write-buffer water marks, counting a fetch answer's file regions by the
 * bytes they will send. Netty's default counts a {@link FileRegion} as 0, which would let a client that never reads
 * pile up fetch answers, and the segment leases they hold, without the channel ever turning unwritable.
 */
final class ResponseSizeEstimator implements MessageSizeEstimator {
    static final ResponseSizeEstimator INSTANCE = new ResponseSizeEstimator();

    private static final Handle DEFAULT = DefaultMessageSizeEstimator.DEFAULT.newHandle();
    private static final Handle HANDLE = message -> message instanceof FileRegion region
            ? (int) Math.min(Integer.MAX_VALUE, region.count())
            : DEFAULT.size(message);

    private ResponseSizeEstimator() {}

    @Override
    public Handle newHandle() {
        return HANDLE;
    }
}
