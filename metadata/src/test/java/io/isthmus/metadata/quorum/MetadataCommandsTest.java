package io.isthmus.metadata.quorum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.Arrays;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopic;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
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
        byte[] describe = MetadataCommands.encode(new DescribeClusterRequestData());
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
    void theQuorumAppliesExactlyTheControllerRequests() {
        for (ApiKeys key : MetadataCommands.COMMANDS) {
            ApiMessage request = org.apache.kafka.common.message.ApiMessageType.fromApiKey(key.id)
                    .newRequest();
            assertThat(MetadataCommands.decodeCommand(ByteBuffer.wrap(MetadataCommands.encode(request))))
                    .isEqualTo(request);
        }
    }
}
