package io.isthmus.metadata.controller;

import io.isthmus.metadata.image.ClusterImage;
import org.apache.kafka.common.message.AllocateProducerIdsRequestData;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.AlterPartitionRequestData;
import org.apache.kafka.common.message.BrokerHeartbeatRequestData;
import org.apache.kafka.common.message.BrokerRegistrationRequestData;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.ElectLeadersRequestData;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * The cluster's metadata logic: applies one controller request to the current image and answers it.
 *
 * <p>Deterministic by construction, because every voter applies the same quorum log through its own controller and
 * must reach the same image: the outcome depends only on the image, the command and its log index (which supplies
 * broker epochs, topic ids and placement seeds). No clock, no randomness, no local configuration. Anything that
 * varies per voter (defaults, session timers) is settled before a command enters the log.
 *
 * <p>Not thread-safe: the quorum's state machine applies the log from one thread.
 */
public final class ClusterController {
    private final String clusterId;
    private final ClusterState state = new ClusterState();
    private final BrokerCommands brokers;
    private final TopicCommands topics;
    private final PartitionCommands partitions;
    private ClusterImage image = ClusterImage.EMPTY;

    public ClusterController(String clusterId) {
        this.clusterId = clusterId;
        this.brokers = new BrokerCommands(clusterId, state);
        this.topics = new TopicCommands(clusterId, state);
        this.partitions = new PartitionCommands(state);
    }

    public String clusterId() {
        return clusterId;
    }

    /** The image after the last command applied (or restored). */
    public ClusterImage image() {
        return image;
    }

    /** Replaces the state with a snapshot's. */
    public void restore(ClusterImage snapshot) {
        state.restore(snapshot);
        image = snapshot;
    }

    /**
     * Applies the command at quorum log {@code index} and answers it.
     *
     * <p>A command that fails midway (a bug: every refusal Kafka defines is answered, not thrown) leaves the state
     * as it was before the command, on every voter alike, and throws {@link CommandFailedException}; the quorum
     * answers the sender with the reason and goes on with the next entry.
     *
     * @throws UnsupportedOperationException if the command is not one the quorum applies
     * @throws CommandFailedException if applying it failed; nothing changed
     */
    public ApiMessage apply(long index, ApiMessage command) {
        if (index <= image.appliedIndex()) {
            throw new IllegalStateException(
                    "command at log index " + index + " arrived after index " + image.appliedIndex() + " was applied");
        }
        ApiMessage answer;
        try {
            answer = dispatch(index, command);
        } catch (UnsupportedOperationException notACommand) {
            throw notACommand;
        } catch (RuntimeException e) {
            state.restore(image);
            throw new CommandFailedException(
                    command.getClass().getSimpleName() + " at log index " + index + " failed and changed nothing: " + e,
                    e);
        }
        image = state.toImage(index);
        return answer;
    }

    private ApiMessage dispatch(long index, ApiMessage command) {
        return switch (command) {
            case BrokerRegistrationRequestData r -> brokers.register(index, r);
            case BrokerHeartbeatRequestData h -> brokers.heartbeat(index, h);
            case AllocateProducerIdsRequestData a -> brokers.allocateProducerIds(index, a);
            case CreateTopicsRequestData c -> topics.createTopics(index, c);
            case CreatePartitionsRequestData c -> topics.createPartitions(index, c);
            case DeleteTopicsRequestData d -> topics.deleteTopics(d);
            case AlterPartitionRequestData a -> partitions.alterPartition(a);
            case AlterPartitionReassignmentsRequestData a -> partitions.alterPartitionReassignments(a);
            case ElectLeadersRequestData e -> partitions.electLeaders(e);
            default ->
                throw new UnsupportedOperationException("the metadata quorum does not apply "
                        + command.getClass().getSimpleName());
        };
    }
}
