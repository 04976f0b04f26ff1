package io.isthmus.protocol.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ProduceAccessRequestTest {
    @Test
    void shouldPutEveryFieldAtItsDocumentedOffsetBigEndian() {
        final byte[] bytes = new byte[64];
        final ProduceAccessRequest request = new ProduceAccessRequest()
                .wrapForEncode(MemorySegment.ofArray(bytes), 5)
                .partition(3)
                .flags(ProduceAccessRequest.ROLL_FULL | ProduceAccessRequest.SHARED)
                .fullSegmentId(65535)
                .fullOrder(65534)
                .acks((short) -1)
                .timeoutMs(30_000)
                .leaderId(7)
                .leaderEpoch(12)
                .topic("ørders");

        final ByteBuffer wire = ByteBuffer.wrap(bytes, 5, bytes.length - 5).slice();
        assertThat(request.encodedLength()).isEqualTo(ProduceAccessRequest.TOPIC_OFFSET + 2 + 7);
        assertThat(wire.getInt(ProduceAccessRequest.PARTITION_OFFSET)).isEqualTo(3);
        assertThat(wire.getInt(ProduceAccessRequest.FLAGS_OFFSET)).isEqualTo(3);
        assertThat(wire.getInt(ProduceAccessRequest.FULL_SEGMENT_ID_OFFSET)).isEqualTo(65535);
        assertThat(wire.getInt(ProduceAccessRequest.FULL_ORDER_OFFSET)).isEqualTo(65534);
        assertThat(wire.getShort(ProduceAccessRequest.ACKS_OFFSET)).isEqualTo((short) -1);
        assertThat(wire.getInt(ProduceAccessRequest.TIMEOUT_MS_OFFSET)).isEqualTo(30_000);
        assertThat(wire.getInt(ProduceAccessRequest.LEADER_ID_OFFSET)).isEqualTo(7);
        assertThat(wire.getInt(ProduceAccessRequest.LEADER_EPOCH_OFFSET)).isEqualTo(12);
        assertThat(wire.getShort(ProduceAccessRequest.TOPIC_OFFSET)).isEqualTo((short) 7);
        assertThat(new String(bytes, 5 + ProduceAccessRequest.TOPIC_OFFSET + 2, 7, StandardCharsets.UTF_8))
                .isEqualTo("ørders");

        final ProduceAccessRequest read =
                new ProduceAccessRequest().wrap(MemorySegment.ofArray(bytes), 5, request.encodedLength());
        assertThat(read.topic()).isEqualTo("ørders");
        assertThat(read.partition()).isEqualTo(3);
        assertThat(read.rollsFullSegment()).isTrue();
        assertThat(read.shared()).isTrue();
        assertThat(read.fullSegmentId()).isEqualTo(65535);
        assertThat(read.fullOrder()).isEqualTo(65534);
        assertThat(read.acks()).isEqualTo((short) -1);
        assertThat(read.timeoutMs()).isEqualTo(30_000);
        assertThat(read.leaderId()).isEqualTo(7);
        assertThat(read.leaderEpoch()).isEqualTo(12);
        assertThat(read.replica()).isFalse();
    }

    @Test
    void shouldTellAPushReplicationRequestByItsFlag() {
        final ProduceAccessRequest request = new ProduceAccessRequest()
                .wrapForEncode(MemorySegment.ofArray(new byte[64]), 0)
                .flags(ProduceAccessRequest.REPLICA)
                .topic("orders");

        assertThat(request.replica()).isTrue();
        assertThat(request.shared()).isFalse();
        assertThat(request.rollsFullSegment()).isFalse();
    }

    @Test
    void shouldTellAFirstExclusiveRequestByItsFlags() {
        final ProduceAccessRequest request = new ProduceAccessRequest()
                .wrapForEncode(MemorySegment.ofArray(new byte[64]), 0)
                .partition(0)
                .fullSegmentId(-1)
                .fullOrder(-1)
                .topic("orders");

        assertThat(request.flags()).isZero();
        assertThat(request.rollsFullSegment()).isFalse();
        assertThat(request.shared()).isFalse();
        assertThat(request.flags(ProduceAccessRequest.SHARED).shared()).isTrue();
        assertThat(request.rollsFullSegment()).isFalse();
    }

    @Test
    void shouldRejectATruncatedBodyAndATopicRunningPastIt() {
        final byte[] bytes = new byte[ProduceAccessRequest.TOPIC_OFFSET + 2 + 6];
        new ProduceAccessRequest()
                .wrapForEncode(MemorySegment.ofArray(bytes), 0)
                .topic("orders");

        assertThatThrownBy(() -> new ProduceAccessRequest().wrap(MemorySegment.ofArray(bytes), 0, 17))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("truncated ProduceAccess request: length=17 needed=34");
        assertThatThrownBy(() -> new ProduceAccessRequest().wrap(MemorySegment.ofArray(bytes), 0, bytes.length - 1L))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("topic runs past the message")
                .hasMessageContaining("stringLength=6 length=39");
    }
}
