package io.isthmus.benchmarks.harness.client;

import io.isthmus.client.consumer.ConsumedRecord;
import io.isthmus.client.consumer.ConsumerConfig;
import io.isthmus.client.consumer.ConsumerRecordHandler;
import io.isthmus.client.consumer.IsthmusConsumer;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * The isthmus zero-copy consumer over TCP or shared memory with {@code assign} (no group), every partition from the beginning, CRC
 * checks on (the default), through its allocation-free path: {@code poll(handler, limit, timeout)} with one handler
 * object that reads each value's size and first eight bytes in place from the receive buffer (over shared memory: from
 * the broker's segment mapping).
 */
final class IsthmusConsumerClient implements ConsumerClient, ConsumerRecordHandler {
    /** Records handed over per poll at most (kafka-clients' {@code max.poll.records} is 500). */
    static final int POLL_LIMIT = 4096;

    /** Per-partition fetch size: what the isthmus demo uses, four times Kafka's default. */
    static final int MAX_PARTITION_FETCH_BYTES = 4 * 1024 * 1024;

    private static final ValueLayout.OfLong BIG_ENDIAN_LONG =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final IsthmusConsumer consumer;
    private final List<TopicPartition> partitions = new ArrayList<>();
    private RecordSink sink;
    private boolean polled;

    /** @param transport {@code tcp} or {@code shm} */
    IsthmusConsumerClient(final ClientSettings settings, final String clientId, final String transport) {
        final Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS, settings.bootstrap());
        config.put(ConsumerConfig.CLIENT_ID, clientId);
        config.put(ConsumerConfig.FETCH_MAX_WAIT_MS, Integer.toString(settings.fetchMaxWaitMs()));
        config.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES, Integer.toString(MAX_PARTITION_FETCH_BYTES));
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT, "false");
        config.put(ConsumerConfig.AUTO_OFFSET_RESET, "earliest");
        config.put(ConsumerConfig.TRANSPORT, transport);
        config.put(ConsumerConfig.ISOLATION_LEVEL, settings.isolation());
        this.consumer = new IsthmusConsumer(new ConsumerConfig(config));
        for (int p = 0; p < settings.partitions(); p++) {
            partitions.add(new TopicPartition(settings.topic(), p));
        }
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
    }

    @Override
    public void rewind() {
        consumer.seekToBeginning(partitions);
    }

    @Override
    public int poll(final Duration timeout, final RecordSink recordSink) {
        this.sink = recordSink;
        final int handled = consumer.poll(this, POLL_LIMIT, timeout);
        polled = true;
        return handled;
    }

    @Override
    public void onRecord(final ConsumedRecord record) {
        final int size = record.valueSize();
        final MemorySegment segment = record.segment();
        sink.onRecord(size, size >= Long.BYTES ? segment.get(BIG_ENDIAN_LONG, record.valueOffset()) : 0L);
    }

    @Override
    public long fetchRequests() {
        return -1;
    }

    /** The first poll resolves the positions and sends the first fetch before it waits. */
    @Override
    public boolean fetching() {
        return polled;
    }

    @Override
    public void close() {
        consumer.close();
    }
}
