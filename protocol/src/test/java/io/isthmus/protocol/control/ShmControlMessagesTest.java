package io.isthmus.protocol.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

class ShmControlMessagesTest {
    @Test
    void shouldCarryTheTokenOfAnAttachRequestAndRefuseATokenOfAnotherLength() {
        final byte[] token = new byte[16];
        token[0] = 1;
        token[15] = -1;
        final byte[] bytes = new byte[ShmAttachRequest.LENGTH];
        new ShmAttachRequest().wrapForEncode(MemorySegment.ofArray(bytes), 0).token(token);

        assertThat(bytes).isEqualTo(token);
        assertThat(new ShmAttachRequest().wrap(MemorySegment.ofArray(bytes), 0).token())
                .isEqualTo(token);
        assertThatThrownBy(() -> new ShmAttachRequest()
                        .wrapForEncode(MemorySegment.ofArray(new byte[16]), 0)
                        .token(new byte[15]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("token");
        assertThatThrownBy(() -> new ShmAttachRequest().wrap(MemorySegment.ofArray(new byte[15]), 0, 15))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("truncated ShmAttach request");
    }

    @Test
    void shouldPutEveryAttachResponseFieldAtItsDocumentedOffset() {
        final String directory = "/var/lib/isthmus/.isthmus-shm";
        final byte[] bytes = new byte[ShmAttachResponse.length(directory)];
        new ShmAttachResponse()
                .wrapForEncode(MemorySegment.ofArray(bytes), 0)
                .errorCode(ControlErrorCodes.NONE)
                .slotRange(3)
                .slotsPerRange(256)
                .generation(0x1122334455667788L)
                .detail(directory);

        final ByteBuffer wire = ByteBuffer.wrap(bytes);
        assertThat(wire.getInt(ShmAttachResponse.SLOT_RANGE_OFFSET)).isEqualTo(3);
        assertThat(wire.getInt(ShmAttachResponse.SLOTS_PER_RANGE_OFFSET)).isEqualTo(256);
        assertThat(wire.getLong(ShmAttachResponse.GENERATION_OFFSET)).isEqualTo(0x1122334455667788L);
        final ShmAttachResponse read = new ShmAttachResponse().wrap(MemorySegment.ofArray(bytes), 0);
        assertThat(read.errorCode()).isEqualTo(ControlErrorCodes.NONE);
        assertThat(read.slotRange()).isEqualTo(3);
        assertThat(read.slotsPerRange()).isEqualTo(256);
        assertThat(read.generation()).isEqualTo(0x1122334455667788L);
        assertThat(read.detail()).isEqualTo(directory);
        assertThat(ControlErrorCodes.name(ControlErrorCodes.SHM_TOKEN_MISMATCH)).isEqualTo("SHM_TOKEN_MISMATCH");
        assertThat(ControlErrorCodes.isRetriable(ControlErrorCodes.SHM_UNAVAILABLE))
                .isFalse();
    }

    @Test
    void shouldPutEveryConsumeAccessResponseFieldAtItsDocumentedOffsetAndRefuseAPathPastTheEnd() {
        final String path = "/logs/events-0/00000000000000000000.log";
        final byte[] bytes = new byte[ShmConsumeAccessResponse.length(path)];
        new ShmConsumeAccessResponse()
                .wrapForEncode(MemorySegment.ofArray(bytes), 0)
                .errorCode(ControlErrorCodes.NONE)
                .flags(ShmConsumeAccessResponse.SEALED)
                .segmentId(70_000)
                .slotIndex(5)
                .capacity(1 << 30)
                .startPosition(4096)
                .readablePosition(8192)
                .segmentBaseOffset(123_456_789_012L)
                .abortedArrayId(9)
                .abortedBase(512)
                .abortedCapacity(1024)
                .segmentPath(path);

        final ByteBuffer wire = ByteBuffer.wrap(bytes);
        assertThat(wire.getShort(ShmConsumeAccessResponse.FLAGS_OFFSET)).isEqualTo((short) 1);
        assertThat(wire.getInt(ShmConsumeAccessResponse.SEGMENT_ID_OFFSET)).isEqualTo(70_000);
        assertThat(wire.getInt(ShmConsumeAccessResponse.SLOT_INDEX_OFFSET)).isEqualTo(5);
        assertThat(wire.getInt(ShmConsumeAccessResponse.CAPACITY_OFFSET)).isEqualTo(1 << 30);
        assertThat(wire.getLong(ShmConsumeAccessResponse.START_POSITION_OFFSET)).isEqualTo(4096);
        assertThat(wire.getLong(ShmConsumeAccessResponse.READABLE_POSITION_OFFSET))
                .isEqualTo(8192);
        assertThat(wire.getLong(ShmConsumeAccessResponse.SEGMENT_BASE_OFFSET_OFFSET))
                .isEqualTo(123_456_789_012L);
        final ShmConsumeAccessResponse read = new ShmConsumeAccessResponse().wrap(MemorySegment.ofArray(bytes), 0);
        assertThat(read.sealed()).isTrue();
        assertThat(read.segmentPath()).isEqualTo(path);
        assertThat(read.readablePosition()).isEqualTo(8192);

        final byte[] cut = java.util.Arrays.copyOf(bytes, bytes.length - 1);
        assertThatThrownBy(() -> new ShmConsumeAccessResponse().wrap(MemorySegment.ofArray(cut), 0, cut.length))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("segmentPath");
    }

    @Test
    void shouldLayTheSlotFileOutAsDocumentedAndPublishTheStateLast() {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment file = arena.allocate(ShmSlotFileDescriptor.fileLength(2, 4), 8);
            assertThat(file.byteSize()).isEqualTo(4096 + 2 * 4 * MetadataSlotDescriptor.LENGTH);
            assertThat(ShmSlotFileDescriptor.state(file)).isZero();

            ShmSlotFileDescriptor.initialise(file, 42, 4, 2);

            final ByteBuffer header = file.asByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
            assertThat(header.getLong(0)).isEqualTo(ShmSlotFileDescriptor.MAGIC);
            assertThat(header.getLong(8)).isEqualTo(42);
            assertThat(header.getLong(16)).isEqualTo(ShmSlotFileDescriptor.OPEN);
            assertThat(header.getInt(24)).isEqualTo(4);
            assertThat(header.getInt(28)).isEqualTo(2);
            assertThat(ShmSlotFileDescriptor.rangeOffset(1, 4)).isEqualTo(4096 + 4 * MetadataSlotDescriptor.LENGTH);

            MetadataSlotDescriptor.publish(
                    file,
                    ShmSlotFileDescriptor.rangeOffset(1, 4),
                    MetadataSlotDescriptor.readableWord(512, true, false),
                    9,
                    3,
                    -1,
                    0);
            final long word = MetadataSlotDescriptor.readableAcquire(file, ShmSlotFileDescriptor.rangeOffset(1, 4));
            assertThat(MetadataSlotDescriptor.position(word)).isEqualTo(512);
            assertThat(MetadataSlotDescriptor.isSealed(word)).isTrue();

            ShmSlotFileDescriptor.close(file);
            assertThat(ShmSlotFileDescriptor.state(file)).isEqualTo(ShmSlotFileDescriptor.CLOSED);
            assertThat(ShmSlotFileDescriptor.generation(file)).isEqualTo(42);
        }
    }

    @Test
    void shouldPutEveryProduceMessageFieldAtItsDocumentedOffset() {
        final byte[] access = new byte[ShmProduceAccessRequest.TOPIC_OFFSET + ControlCodec.stringLength("orders")];
        new ShmProduceAccessRequest()
                .wrapForEncode(MemorySegment.ofArray(access), 0)
                .partition(7)
                .slots(8)
                .slotBytes(262_144)
                .acks((short) -1)
                .timeoutMs(30_000)
                .topic("orders");
        final ByteBuffer accessWire = ByteBuffer.wrap(access);
        assertThat(accessWire.getInt(ShmProduceAccessRequest.PARTITION_OFFSET)).isEqualTo(7);
        assertThat(accessWire.getShort(ShmProduceAccessRequest.ACKS_OFFSET)).isEqualTo((short) -1);
        assertThat(accessWire.getInt(ShmProduceAccessRequest.TIMEOUT_MS_OFFSET)).isEqualTo(30_000);
        assertThat(accessWire.getInt(ShmProduceAccessRequest.SLOTS_OFFSET)).isEqualTo(8);
        assertThat(accessWire.getInt(ShmProduceAccessRequest.SLOT_BYTES_OFFSET)).isEqualTo(262_144);
        final ShmProduceAccessRequest readAccess = new ShmProduceAccessRequest().wrap(MemorySegment.ofArray(access), 0);
        assertThat(readAccess.topic()).isEqualTo("orders");
        assertThat(readAccess.slots()).isEqualTo(8);

        final String path = "/var/lib/isthmus/.isthmus-shm/staging-3";
        final byte[] granted = new byte[ShmProduceAccessResponse.length(path)];
        new ShmProduceAccessResponse()
                .wrapForEncode(MemorySegment.ofArray(granted), 0)
                .stagingId(3)
                .slots(4)
                .slotBytes(1_048_640)
                .detail(path);
        final ByteBuffer grantedWire = ByteBuffer.wrap(granted);
        assertThat(grantedWire.getShort(ShmProduceAccessResponse.ERROR_CODE_OFFSET))
                .isZero();
        assertThat(grantedWire.getInt(ShmProduceAccessResponse.STAGING_ID_OFFSET))
                .isEqualTo(3);
        assertThat(grantedWire.getInt(ShmProduceAccessResponse.SLOTS_OFFSET)).isEqualTo(4);
        assertThat(grantedWire.getInt(ShmProduceAccessResponse.SLOT_BYTES_OFFSET))
                .isEqualTo(1_048_640);
        assertThat(new ShmProduceAccessResponse()
                        .wrap(MemorySegment.ofArray(granted), 0)
                        .detail())
                .isEqualTo(path);

        final byte[] doorbell = new byte[ShmProduceRequest.LENGTH];
        new ShmProduceRequest()
                .wrapForEncode(MemorySegment.ofArray(doorbell), 0)
                .stagingId(3)
                .slot(2);
        assertThat(ByteBuffer.wrap(doorbell).getInt(ShmProduceRequest.SLOT_OFFSET))
                .isEqualTo(2);
        assertThat(new ShmProduceRequest()
                        .wrap(MemorySegment.ofArray(doorbell), 0)
                        .stagingId())
                .isEqualTo(3);
        assertThatThrownBy(() -> new ShmProduceRequest().wrap(MemorySegment.ofArray(new byte[7]), 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("truncated ShmProduce request");

        final byte[] answer = new byte[ShmProduceResponse.length("bad crc")];
        new ShmProduceResponse()
                .wrapForEncode(MemorySegment.ofArray(answer), 0)
                .errorCode(ControlErrorCodes.CORRUPT_MESSAGE)
                .baseOffset(-1)
                .detail("bad crc");
        final ByteBuffer answerWire = ByteBuffer.wrap(answer);
        assertThat(answerWire.getShort(ShmProduceResponse.ERROR_CODE_OFFSET))
                .isEqualTo(ControlErrorCodes.CORRUPT_MESSAGE);
        assertThat(answerWire.getLong(ShmProduceResponse.BASE_OFFSET_OFFSET)).isEqualTo(-1);
        final ShmProduceResponse readAnswer = new ShmProduceResponse().wrap(MemorySegment.ofArray(answer), 0);
        assertThat(readAnswer.detail()).isEqualTo("bad crc");
        assertThat(ControlApiKeys.name(ControlApiKeys.SHM_PRODUCE)).isEqualTo("ShmProduce");
        assertThat(ShmDirectoryLayout.stagingFile(3)).isEqualTo("staging-3");
    }
}
