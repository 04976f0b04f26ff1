package io.isthmus.broker.cluster;

import io.isthmus.broker.producer.ProducerIds;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.CoordinatorLoadInProgressException;
import org.apache.kafka.common.message.AllocateProducerIdsRequestData;
import org.apache.kafka.common.message.AllocateProducerIdsResponseData;
import org.apache.kafka.common.protocol.Errors;

/**
 * Producer ids of a broker of a cluster, in blocks the metadata quorum hands out (Kafka's {@code AllocateProducerIds}):
 * no two brokers ever hand out the same id, and a restarted broker takes a new block rather than reuse its last one.
 * The next block is asked for when half of the current one is used, so producers rarely wait for the quorum.
 */
final class QuorumProducerIds implements ProducerIds {
    private static final long WAIT_SECONDS = 10;

    private final ClusterMembership membership;
    /** The current block is {@code [next, end)}, of {@code blockSize} ids. */
    private long next;

    private long end;
    private long blockSize;
    /** The block asked for ahead of need, or null. */
    private CompletableFuture<AllocateProducerIdsResponseData> nextBlock;

    QuorumProducerIds(final ClusterMembership membership) {
        this.membership = membership;
    }

    @Override
    public synchronized long nextId() {
        if (next == end) {
            takeBlock();
        }
        final long id = next++;
        if (nextBlock == null && end - next <= blockSize / 2) {
            nextBlock = request();
        }
        return id;
    }

    private void takeBlock() {
        final CompletableFuture<AllocateProducerIdsResponseData> asked = nextBlock != null ? nextBlock : request();
        nextBlock = null;
        final AllocateProducerIdsResponseData block;
        try {
            block = asked.get(WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CoordinatorLoadInProgressException("interrupted while waiting for producer ids");
        } catch (final ExecutionException | TimeoutException e) {
            throw new CoordinatorLoadInProgressException(
                    "broker " + membership.nodeId() + " could not get producer ids from the metadata quorum: " + e);
        }
        final Errors error = Errors.forCode(block.errorCode());
        if (error != Errors.NONE) {
            final ApiException cause = error.exception();
            throw new CoordinatorLoadInProgressException("broker " + membership.nodeId()
                    + " was refused producer ids by the metadata quorum: " + error + " (" + cause.getMessage() + ")");
        }
        next = block.producerIdStart();
        end = block.producerIdStart() + block.producerIdLen();
        blockSize = block.producerIdLen();
    }

    private CompletableFuture<AllocateProducerIdsResponseData> request() {
        final long epoch = membership.brokerEpoch();
        if (epoch < 0) {
            return CompletableFuture.failedFuture(
                    new IllegalStateException("broker " + membership.nodeId() + " is not registered yet"));
        }
        return membership
                .quorum()
                .allocateProducerIds(new AllocateProducerIdsRequestData()
                        .setBrokerId(membership.nodeId())
                        .setBrokerEpoch(epoch));
    }
}
