package io.isthmus.broker.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.broker.partition.PartitionManager;
import io.isthmus.broker.testkit.KafkaBatches;
import io.isthmus.broker.testkit.TestPartitions;
import java.nio.file.Path;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ListOffsetsHandlerTest {
    private static final short VERSION = ApiKeys.LIST_OFFSETS.latestVersion();

    @TempDir
    Path tmp;

    private PartitionManager partitions;
    private ListOffsetsHandler handler;

    @BeforeEach
    void setUp() throws Exception {
        partitions = TestPartitions.start(tmp);
        partitions.createTopic("orders", 1);
        handler = new ListOffsetsHandler(partitions, AccessControl.allowAll());
        final var partition =
                partitions.partition(new TopicPartition("orders", 0)).orElseThrow();
        partition.appendFromClient(KafkaBatches.segment(KafkaBatches.plain("a", 1_000L, 2_000L, 3_000L)));
        partition.appendFromClient(KafkaBatches.segment(KafkaBatches.plain("b", 4_000L, 5_000L)));
    }

    @AfterEach
    void tearDown() throws Exception {
        partitions.close();
    }

    private ListOffsetsResponseData.ListOffsetsPartitionResponse list(
            final String topic, final int partition, final long timestamp) throws Exception {
        final ListOffsetsRequestData data = new ListOffsetsRequestData().setReplicaId(-1);
        final ListOffsetsRequestData.ListOffsetsTopic requested =
                new ListOffsetsRequestData.ListOffsetsTopic().setName(topic);
        requested
                .partitions()
                .add(new ListOffsetsRequestData.ListOffsetsPartition()
                        .setPartitionIndex(partition)
                        .setTimestamp(timestamp));
        data.topics().add(requested);
        final ListOffsetsResponseData response = Requests.body(handler, ApiKeys.LIST_OFFSETS, VERSION, data);
        final ListOffsetsResponseData.ListOffsetsTopicResponse topicResponse =
                response.topics().getFirst();
        assertThat(topicResponse.name()).isEqualTo(topic);
        final ListOffsetsResponseData.ListOffsetsPartitionResponse answer =
                topicResponse.partitions().getFirst();
        assertThat(answer.partitionIndex()).isEqualTo(partition);
        return answer;
    }

    @Test
    void shouldAnswerTheEarliestOffset() throws Exception {
        final var answer = list("orders", 0, ListOffsetsRequest.EARLIEST_TIMESTAMP);

        assertThat(answer.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(answer.offset()).isZero();
        assertThat(answer.timestamp()).isEqualTo(-1);
    }

    @Test
    void shouldAnswerTheLatestOffset() throws Exception {
        final var answer = list("orders", 0, ListOffsetsRequest.LATEST_TIMESTAMP);

        assertThat(answer.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(answer.offset()).isEqualTo(5);
        assertThat(answer.leaderEpoch()).isZero();
    }

    @Test
    void shouldAnswerTheExactRecordForATimestampInsideABatch() throws Exception {
        final var inFirstBatch = list("orders", 0, 1_500L);
        final var exact = list("orders", 0, 4_000L);
        final var inSecondBatch = list("orders", 0, 4_001L);

        assertThat(inFirstBatch.offset()).isEqualTo(1);
        assertThat(inFirstBatch.timestamp()).isEqualTo(2_000L);
        assertThat(exact.offset()).isEqualTo(3);
        assertThat(exact.timestamp()).isEqualTo(4_000L);
        assertThat(inSecondBatch.offset()).isEqualTo(4);
        assertThat(inSecondBatch.timestamp()).isEqualTo(5_000L);
    }

    @Test
    void shouldAnswerTheFirstRecordForATimestampBeforeAll() throws Exception {
        final var answer = list("orders", 0, 0L);

        assertThat(answer.offset()).isZero();
        assertThat(answer.timestamp()).isEqualTo(1_000L);
    }

    @Test
    void shouldAnswerNoOffsetForATimestampAfterAll() throws Exception {
        final var answer = list("orders", 0, 5_001L);

        assertThat(answer.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(answer.offset()).isEqualTo(-1);
        assertThat(answer.timestamp()).isEqualTo(-1);
    }

    @Test
    void shouldAnswerUnknownTopicOrPartition() throws Exception {
        assertThat(list("missing", 0, ListOffsetsRequest.LATEST_TIMESTAMP).errorCode())
                .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        assertThat(list("orders", 1, ListOffsetsRequest.LATEST_TIMESTAMP).errorCode())
                .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
    }

    @Test
    void aPartitionWhoseLogClosedUnderTheLookupIsAnsweredAsUnknownNotAsAServerError() throws Exception {
        // What a topic deleted between the partition's lookup and the log's read leaves (the fuzz test found it).
        partitions
                .partition(new TopicPartition("orders", 0))
                .orElseThrow()
                .log()
                .close();

        final ListOffsetsResponseData.ListOffsetsPartitionResponse answer = list("orders", 0, 2_500L);

        assertThat(Errors.forCode(answer.errorCode())).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION);
    }

    @Test
    void shouldRefuseTheMaxTimestampSpec() throws Exception {
        assertThat(list("orders", 0, ListOffsetsRequest.MAX_TIMESTAMP).errorCode())
                .isEqualTo(Errors.UNSUPPORTED_VERSION.code());
    }
}
