package io.isthmus.broker.transaction;

import io.isthmus.broker.log.LogConfig;
import io.isthmus.broker.log.LogReplay;
import io.isthmus.broker.log.PartitionLog;
import io.isthmus.broker.log.SegmentIdAllocator;
import io.isthmus.protocol.record.Record;
import io.isthmus.protocol.record.RecordBatchBuilder;
import io.isthmus.protocol.record.RecordBatchDescriptor;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The coordinator's durable state: an internal partition log ({@code __transaction_state-0}, like Kafka's) of records
 * keyed by transactional id whose values are {@link TransactionLogValue}s; the last record of an id is its state, and
 * a record without a value removes it. It is the broker's ordinary {@link PartitionLog}, so it has the log's recovery:
 * after {@code kill -9} the records whose append returned are there, and a torn tail is cut.
 *
 * <p>Kafka compacts its state topic. This log does the equivalent: once a segment has filled since the last time, the
 * live states are written again at the head and the segments before them deleted, so the log stays about a segment
 * plus the live states, and loading it reads nothing superseded long ago.
 *
 * <p>On a single broker the log is this broker's own ({@link #open}) and a write is a local append. In a cluster it is
 * the replica this broker leads of one partition of the replicated {@code __transaction_state} topic ({@link #over}):
 * a write returns once the partition's in-sync replicas hold it, so a coordinator elected after this broker fails
 * loads every state this one acted on.
 *
 * <p>Not thread-safe: the coordinator calls it under its lock.
 */
public final class TransactionStateLog implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TransactionStateLog.class);
    /** The state log's name: the directory of a single broker's log, the internal topic of a cluster's. */
    public static final String TOPIC = "__transaction_state";

    static final String PARTITION = TOPIC + "-0";

    /**
     * How a batch of state records becomes durable: returns once it is, or throws {@link StateWriteException} (the
     * state did not change).
     */
    @FunctionalInterface
    public interface Appender {
        void append(MemorySegment batch);
    }

    private final PartitionLog log;
    private final Appender appender;
    private final boolean ownsLog;
    private final RecordBatchBuilder builder = new RecordBatchBuilder();
    private final InstantSource clock;
    private int segmentsAfterCompaction;

    private TransactionStateLog(
            final PartitionLog log, final Appender appender, final boolean ownsLog, final InstantSource clock) {
        this.log = log;
        this.appender = appender;
        this.ownsLog = ownsLog;
        this.clock = clock;
        this.segmentsAfterCompaction = log.segments().size();
    }

    /**
     * The settings of a state log's partition: segments of {@code segmentBytes}, nothing preallocated or pre-touched
     * (the log is small), and no retention, which would delete live states; the log compacts itself instead.
     */
    public static LogConfig logConfig(final int segmentBytes) {
        return LogConfig.from(Map.of(
                LogConfig.SEGMENT_BYTES, Integer.toString(segmentBytes),
                LogConfig.PREALLOCATE, "false",
                LogConfig.PRETOUCH_BYTES, "0",
                LogConfig.INDEX_SIZE_MAX_BYTES, Integer.toString(1 << 20),
                LogConfig.RETENTION_MS, "-1"));
    }

    /**
     * The state kept in {@code log}, a replicated partition's log this broker leads and does not own; {@code
     * appender} appends as its leader and waits for the in-sync replicas.
     */
    public static TransactionStateLog over(final PartitionLog log, final Appender appender, final InstantSource clock) {
        return new TransactionStateLog(log, appender, false, clock);
    }

    /** Opens (recovering it if needed) or creates the state log under {@code metadataDir}. */
    static TransactionStateLog open(
            final Path metadataDir, final int segmentBytes, final SegmentIdAllocator ids, final InstantSource clock)
            throws IOException {
        final PartitionLog log =
                PartitionLog.open(metadataDir.resolve(TOPIC).resolve(PARTITION), logConfig(segmentBytes), ids, clock);
        return new TransactionStateLog(log, batch -> log.append(batch, 0), true, clock);
    }

    /** Reads every record, in order: the states the coordinator had when the broker stopped. */
    Map<String, TransactionMetadata> load() {
        final Map<String, TransactionMetadata> states = new LinkedHashMap<>();
        LogReplay.forEachRecord(log, record -> apply(states, record));
        LOG.info(
                "loaded {} transactional ids from {} (offsets {}..{})",
                states.size(),
                log.dir(),
                log.logStartOffset(),
                log.logEndOffset());
        return states;
    }

    private static void apply(final Map<String, TransactionMetadata> states, final Record record) {
        final String transactionalId = new String(record.keyAsArray(), StandardCharsets.UTF_8);
        if (!record.hasValue()) {
            states.remove(transactionalId);
        } else {
            states.put(
                    transactionalId,
                    TransactionLogValue.decode(transactionalId, ByteBuffer.wrap(record.valueAsArray())));
        }
    }

    /**
     * Appends {@code metadata} as its id's state; returns once the record is in the log (a single broker's page cache,
     * a cluster's in-sync replicas).
     *
     * @throws StateWriteException if it could not be written
     */
    void write(final TransactionMetadata metadata) {
        append(metadata.transactionalId(), TransactionLogValue.encode(metadata));
    }

    /** Appends the removal of {@code transactionalId}. */
    void remove(final String transactionalId) {
        append(transactionalId, null);
    }

    /**
     * Writes every live state again and deletes the segments they supersede, if a segment has filled since the last
     * time ({@code live} are all the coordinator's current states).
     */
    void compactIfDue(final Collection<TransactionMetadata> live) {
        if (log.segments().size() <= segmentsAfterCompaction) {
            return;
        }
        final long snapshotStart = log.logEndOffset();
        for (final TransactionMetadata metadata : live) {
            write(metadata);
        }
        // Never past what is committed: with no live state nothing was written (and waited for) above.
        final int deleted = log.deleteSegmentsBelow(Math.min(snapshotStart, log.highWatermark()));
        segmentsAfterCompaction = log.segments().size();
        LOG.info(
                "compacted the transaction state log: {} live states rewritten from offset {}, {} segments deleted",
                live.size(),
                snapshotStart,
                deleted);
    }

    private void append(final String transactionalId, final byte[] value) {
        final byte[] key = transactionalId.getBytes(StandardCharsets.UTF_8);
        final int capacity = RecordBatchDescriptor.HEADER_LENGTH
                + RecordBatchBuilder.sizeOfRecord(0, 0, key.length, value == null ? -1 : value.length, null);
        final MemorySegment buffer = MemorySegment.ofArray(new byte[capacity]);
        builder.begin(buffer, 0, capacity, 0L);
        builder.append(clock.millis(), key, value);
        final int size = builder.finish();
        appender.append(buffer.asSlice(0, size));
    }

    long sizeInBytes() {
        return log.sizeInBytes();
    }

    @Override
    public void close() {
        builder.close();
        if (ownsLog) {
            log.close();
        }
    }
}
