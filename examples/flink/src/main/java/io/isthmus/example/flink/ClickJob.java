package io.isthmus.example.flink;

import io.isthmus.client.consumer.ConsumedRecord;
import io.isthmus.connector.flink.sink.IsthmusSink;
import io.isthmus.connector.flink.source.IsthmusSource;
import io.isthmus.connector.flink.source.enumerator.initializer.OffsetsInitializer;
import io.isthmus.connector.flink.source.reader.deserializer.IsthmusRecordDeserializationSchema;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.AggregateFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * The demo's job, as a user would write it: read clicks with the isthmus source, parsing each record in place; count
 * them per user in tumbling event-time windows; write the counts with the isthmus sink.
 */
final class ClickJob {
    static final ValueLayout.OfInt INT_BE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfLong LONG_BE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private ClickJob() {}

    /** Key: the user as a 4-byte int; value: the amount as an 8-byte long; both read from the fetched bytes. */
    static final class ClickDeserializer implements IsthmusRecordDeserializationSchema<Click> {
        @Override
        public void deserialize(final ConsumedRecord record, final Collector<Click> out) {
            out.collect(new Click(
                    record.segment().get(INT_BE, record.keyOffset()),
                    record.segment().get(LONG_BE, record.valueOffset())));
        }

        @Override
        public TypeInformation<Click> getProducedType() {
            return TypeInformation.of(Click.class);
        }
    }

    /** Clicks and their amount, per window. */
    static final class CountAndSum implements AggregateFunction<Click, long[], long[]> {
        @Override
        public long[] createAccumulator() {
            return new long[2];
        }

        @Override
        public long[] add(final Click click, final long[] acc) {
            acc[0]++;
            acc[1] += click.amount;
            return acc;
        }

        @Override
        public long[] getResult(final long[] acc) {
            return acc;
        }

        @Override
        public long[] merge(final long[] a, final long[] b) {
            return new long[] {a[0] + b[0], a[1] + b[1]};
        }
    }

    /** Adds the user and the window to the aggregate. */
    static final class ToWindowCount extends ProcessWindowFunction<long[], WindowCount, Integer, TimeWindow> {
        @Override
        public void process(
                final Integer user,
                final Context context,
                final Iterable<long[]> aggregates,
                final Collector<WindowCount> out) {
            final long[] acc = aggregates.iterator().next();
            out.collect(new WindowCount(
                    user, context.window().getStart(), context.window().getEnd(), acc[0], acc[1]));
        }
    }

    static void build(
            final StreamExecutionEnvironment env,
            final String bootstrapServers,
            final String transport,
            final String input,
            final String output,
            final Duration window) {
        final IsthmusSource<Click> clicks = IsthmusSource.<Click>builder()
                .setBootstrapServers(bootstrapServers)
                .setTopics(input)
                .setProperty("transport", transport)
                .setProperty("max.partition.fetch.bytes", Integer.toString(4 << 20))
                .setStartingOffsets(OffsetsInitializer.earliest())
                .setBounded(OffsetsInitializer.latest())
                .setDeserializer(new ClickDeserializer())
                .build();
        final IsthmusSink<WindowCount> counts = IsthmusSink.<WindowCount>builder()
                .setBootstrapServers(bootstrapServers)
                .setProperty("transport", transport)
                .setDeliveryGuarantee(DeliveryGuarantee.AT_LEAST_ONCE)
                .setRecordSerializer((count, context, timestamp) -> new ProducerRecord<>(
                        output,
                        null,
                        count.windowEnd,
                        Integer.toString(count.user).getBytes(StandardCharsets.UTF_8),
                        count.toCsv().getBytes(StandardCharsets.UTF_8)))
                .build();
        env.fromSource(clicks, WatermarkStrategy.<Click>forMonotonousTimestamps(), "clicks")
                .keyBy(click -> click.user)
                .window(TumblingEventTimeWindows.of(window))
                .aggregate(new CountAndSum(), new ToWindowCount())
                .sinkTo(counts);
    }
}
