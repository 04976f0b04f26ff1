package io.isthmus.broker.cluster;

import io.isthmus.broker.producer.ProducerIds;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.errors.CoordinatorLoadInProgressException;
import org.apache.kafka.common.message.AllocateProducerIdsRequestData;
import org.apache.kafka.common.message.AllocateProducerIdsResponseData;
import org.apache.kafka.common.protocol.Errors;

/**
 * Producer ids of a broker of a cluster, in blocks the metadata quorum hands out (Kafka's {@code AllocateProducerIds}):
 * no two brokers ever hand out the same id, and a restarted broker takes a new block rather than reuse its last one.
 *
 * <p>Never waits for the quorum: the next block is asked for when half of the current one is used, and a producer
 * that finds the current block used up before the next has come is answered COORDINATOR_LOAD_IN_PROGRESS, which
 * clients retry (so does the first producer after a start). A request thread is never held for an election.
 */
final class QuorumProducerIds implements ProducerIds {
    /** A block not answered within this is given up on; the next producer asks again. */
    private static final long REQUEST_TIMEOUT_SECONDS = 10;

    private final ClusterMembership membership;
    /** The current block is {@code [next, end)}, of {@code blockSize} ids. */
    private long next;

    private long end;
    private long blockSize;
    /** The block asked for and not yet taken, or null. */
    private CompletableFuture<AllocateProducerIdsResponseData> nextBlock;

    QuorumProducerIds(final ClusterMembership membership) {
        this.membership = membership;
    }

    @Override
    public synchronized long nextId() {
        if (next == end) {
            takeNextBlock();
        }
        final long id = next++;
        if (nextBlock == null && end - next <= blockSize / 2) {
            nextBlock = request();
        }
        return id;
    }

    private void takeNextBlock() {
        if (nextBlock == null) {
            nextBlock = request();
        }
        if (!nextBlock.isDone()) {
            throw new CoordinatorLoadInProgressException(
                    "broker " + membership.nodeId() + " is waiting for producer ids from the metadata quorum");
        }
        final CompletableFuture<AllocateProducerIdsResponseData> taken = nextBlock;
        nextBlock = null;
        final AllocateProducerIdsResponseData block;
        try {
            block = taken.join();
        } catch (final CompletionException e) {
            throw new CoordinatorLoadInProgressException("broker " + membership.nodeId()
                    + " could not get producer ids from the metadata quorum: " + e.getCause());
        }
        final Errors error = Errors.forCode(block.errorCode());
        if (error != Errors.NONE) {
            throw new CoordinatorLoadInProgressException(
                    "broker " + membership.nodeId() + " was refused producer ids by the metadata quorum: " + error);
        }
        next = block.producerIdStart();
        end = block.producerIdStart() + block.producerIdLen();
        blockSize = block.producerIdLen();
    }

    /** Asks the quorum for a block; never throws, and gives up after {@link #REQUEST_TIMEOUT_SECONDS}. */
    private CompletableFuture<AllocateProducerIdsResponseData> request() {
        final long epoch = membership.brokerEpoch();
        if (epoch < 0) {
            return CompletableFuture.failedFuture(
                    new IllegalStateException("broker " + membership.nodeId() + " is not registered yet"));
        }
        try {
            return membership
                    .controller()
                    .allocateProducerIds(new AllocateProducerIdsRequestData()
                            .setBrokerId(membership.nodeId())
                            .setBrokerEpoch(epoch))
                    .orTimeout(REQUEST_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (final RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }
}
