package io.isthmus.metadata.quorum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.Arrays;
import org.apache.kafka.common.errors.UnknownServerException;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopic;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.MessageUtil;
import org.junit.jupiter.api.Test;

class MetadataCommandsTest {
    @Test
    void aCommandAndAnAnswerRoundTripAsKafkaMessages() {
        CreateTopicsRequestData command = new CreateTopicsRequestData();
        command.topics()
                .add(new CreatableTopic().setName("t").setNumPartitions(3).setReplicationFactor((short) 2));
        CreateTopicsResponseData answer = new CreateTopicsResponseData();
        answer.topics()
                .add(new CreateTopicsResponseData.CreatableTopicResult()
                        .setName("t")
                        .setErrorCode((short) 36));

        byte[] encoded = MetadataCommands.encode(command);
        assertThat(ByteBuffer.wrap(encoded).getShort()).isEqualTo(ApiKeys.CREATE_TOPICS.id);
        assertThat(MetadataCommands.decodeCommand(ByteBuffer.wrap(encoded))).isEqualTo(command);
        assertThat(MetadataCommands.decodeAnswer(ByteBuffer.wrap(MetadataCommands.encode(answer))))
                .isEqualTo(answer);
    }

    @Test
    void anythingButAMetadataCommandIsRefusedWithTheReason() {
        assertThatThrownBy(() -> MetadataCommands.encode(new DescribeClusterRequestData()))
                .hasMessageContaining("DESCRIBE_CLUSTER is not a metadata command");
        ByteBuffer body = MessageUtil.toByteBufferAccessor(new DescribeClusterRequestData(), (short) 0)
                .buffer();
        byte[] describe = ByteBuffer.allocate(4 + body.remaining())
                .putShort(ApiKeys.DESCRIBE_CLUSTER.id)
                .putShort((short) 0)
                .put(body)
                .array();
        assertThatThrownBy(() -> MetadataCommands.decodeCommand(ByteBuffer.wrap(describe)))
                .hasMessageContaining("not a metadata command");
        assertThatThrownBy(() -> MetadataCommands.decodeCommand(ByteBuffer.wrap(new byte[] {0, 19})))
                .hasMessageContaining("shorter than its 4-byte header");
        assertThatThrownBy(() -> MetadataCommands.decodeCommand(ByteBuffer.wrap(new byte[] {0, 19, 0x7f, 0})))
                .hasMessageContaining("version 32512 is outside");

        CreateTopicsRequestData command = new CreateTopicsRequestData();
        command.topics()
                .add(new CreatableTopic().setName("topic").setNumPartitions(1).setReplicationFactor((short) 1));
        byte[] whole = MetadataCommands.encode(command);
        byte[] torn = Arrays.copyOf(whole, whole.length - 3);
        assertThatThrownBy(() -> MetadataCommands.decodeCommand(ByteBuffer.wrap(torn)))
                .isInstanceOf(RuntimeException.class);
    }

    @Test
    void aRefusalReachesTheSenderAsKafkasUnknownServerErrorWithTheReason() {
        byte[] refusal = MetadataCommands.encodeRefusal("CreateTopicsRequestData at log index 7 failed: boom");

        assertThatThrownBy(() -> MetadataCommands.decodeAnswer(ByteBuffer.wrap(refusal)))
                .isInstanceOf(UnknownServerException.class)
                .hasMessageContaining("could not apply the command: CreateTopicsRequestData at log index 7 failed");
    }

    @Test
    void theVersionsWrittenArePinnedNotTheNewestOnTheClassPath() {
        CreateTopicsRequestData command = new CreateTopicsRequestData();
        ByteBuffer encoded = ByteBuffer.wrap(MetadataCommands.encode(command));
        encoded.getShort();
        assertThat(encoded.getShort()).isEqualTo(MetadataCommands.VERSIONS.get(ApiKeys.CREATE_TOPICS));
        for (ApiKeys key : MetadataCommands.COMMANDS) {
            assertThat(MetadataCommands.VERSIONS.get(key))
                    .as("%s", key)
                    .isBetween(key.oldestVersion(), key.latestVersion());
        }
    }

    @Test
    void theQuorumAppliesExactlyTheControllerRequests() {
        for (ApiKeys key : MetadataCommands.COMMANDS) {
            ApiMessage request = org.apache.kafka.common.message.ApiMessageType.fromApiKey(key.id)
                    .newRequest();
            assertThat(MetadataCommands.decodeCommand(ByteBuffer.wrap(MetadataCommands.encode(request))))
                    .isEqualTo(request);
        }
    }
}
