package io.isthmus.connector.flink.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.isthmus.client.consumer.ConsumedRecord;
import io.isthmus.client.consumer.ConsumerBatch;
import io.isthmus.client.consumer.IsthmusConsumer;
import io.isthmus.connector.flink.testing.FlinkTestJobs;
import io.isthmus.connector.flink.testing.IsthmusBrokerExtension;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code 'connector' = 'isthmus'} in SQL on a MiniCluster: DDL with the Kafka connector's options, INSERT, SELECT. */
class IsthmusSqlTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = FlinkTestJobs.miniCluster();

    @RegisterExtension
    static final IsthmusBrokerExtension BROKER = new IsthmusBrokerExtension();

    private static StreamTableEnvironment tables() {
        return StreamTableEnvironment.create(FlinkTestJobs.failFast(1));
    }

    private static List<Row> collect(final TableResult result) throws Exception {
        final List<Row> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = result.collect()) {
            it.forEachRemaining(rows::add);
        }
        return rows;
    }

    @Test
    void shouldInsertAndSelectWithKeyValueFormatsAndMetadataColumns() throws Exception {
        BROKER.createTopic("orders", 1);
        final StreamTableEnvironment tables = tables();
        tables.executeSql("CREATE TABLE orders (\n"
                + "  id BIGINT,\n"
                + "  product STRING,\n"
                + "  amount DOUBLE,\n"
                + "  `partition` INT METADATA VIRTUAL,\n"
                + "  `offset` BIGINT METADATA VIRTUAL,\n"
                + "  ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp',\n"
                + "  ts_type STRING METADATA FROM 'timestamp-type' VIRTUAL,\n"
                + "  headers MAP<STRING, BYTES> METADATA\n"
                + ") WITH (\n"
                + "  'connector' = 'isthmus',\n"
                + "  'topic' = 'orders',\n"
                + "  'properties.bootstrap.servers' = '" + BROKER.bootstrapServers() + "',\n"
                + "  'properties.transport' = 'tcp',\n"
                + "  'key.format' = 'json',\n"
                + "  'key.fields' = 'id',\n"
                + "  'value.format' = 'json',\n"
                + "  'value.fields-include' = 'EXCEPT_KEY',\n"
                + "  'scan.startup.mode' = 'earliest-offset',\n"
                + "  'scan.bounded.mode' = 'latest-offset'\n"
                + ")");
        tables.executeSql("INSERT INTO orders (id, product, amount, ts, headers) VALUES\n"
                        + "  (1, 'apple', 1.5, TO_TIMESTAMP_LTZ(1000, 3), MAP['source', CAST(X'6162' AS BYTES)]),\n"
                        + "  (2, 'pear', 2.5, TO_TIMESTAMP_LTZ(2000, 3), MAP['source', CAST(X'6364' AS BYTES)]),\n"
                        + "  (3, 'plum', 3.5, TO_TIMESTAMP_LTZ(3000, 3), MAP['source', CAST(X'6566' AS BYTES)])")
                .await();

        final List<Row> rows = collect(tables.executeSql(
                "SELECT id, product, amount, `partition`, `offset`, ts, headers['source'], ts_type FROM orders"));
        assertThat(rows).hasSize(3);
        // The sink's parallel writers append in whatever order they run: offsets are 0..2, in some order.
        assertThat(rows).extracting(row -> row.getField(4)).containsExactlyInAnyOrder(0L, 1L, 2L);
        rows.sort((a, b) -> Long.compare((Long) a.getField(0), (Long) b.getField(0)));
        final String[] products = {"apple", "pear", "plum"};
        for (int i = 0; i < 3; i++) {
            final Row row = rows.get(i);
            assertThat(row.getField(0)).isEqualTo(i + 1L);
            assertThat(row.getField(1)).isEqualTo(products[i]);
            assertThat(row.getField(2)).isEqualTo(i + 1.5);
            assertThat(row.getField(3)).isEqualTo(0);
            assertThat(row.getField(5)).isEqualTo(Instant.ofEpochMilli((i + 1) * 1000L));
            assertThat((byte[]) row.getField(6)).isEqualTo(new byte[] {(byte) (0x61 + 2 * i), (byte) (0x62 + 2 * i)});
            assertThat(row.getField(7)).isEqualTo("CreateTime");
        }

        // What the sink wrote, as bytes: the key format over the key column, the value without it.
        try (IsthmusConsumer consumer =
                new IsthmusConsumer(Map.of("bootstrap.servers", BROKER.bootstrapServers(), "transport", "tcp"))) {
            final long appleOffset = rows.get(0).<Long>getFieldAs(4);
            consumer.assign(List.of(new TopicPartition("orders", 0)));
            consumer.seek(new TopicPartition("orders", 0), appleOffset);
            try (ConsumerBatch batch = consumer.poll(Duration.ofSeconds(10))) {
                ConsumedRecord first = null;
                while (batch.next()) {
                    if (batch.record().offset() == appleOffset) {
                        first = batch.record();
                        break;
                    }
                }
                assertThat(first)
                        .as("the apple record at offset %s", appleOffset)
                        .isNotNull();
                assertThat(first.keyAsString()).isEqualTo("{\"id\":1}");
                assertThat(first.valueAsString()).isEqualTo("{\"product\":\"apple\",\"amount\":1.5}");
                assertThat(first.timestamp()).isEqualTo(1000L);
                assertThat(first.headerKey(0)).isEqualTo("source");
                assertThat(new String(first.headerValue(0).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8))
                        .isEqualTo("ab");
            }
        }
    }

    @Test
    void shouldReadRawCsvAndSpecificOffsetsAndStopAtATimestamp() throws Exception {
        BROKER.createTopic("lines", 2);
        BROKER.write("lines", 0, "a", 0, 10, 10_000);
        BROKER.write("lines", 1, "b", 0, 10, 10_000);
        final StreamTableEnvironment tables = tables();
        tables.executeSql("CREATE TABLE lines (line STRING) WITH (\n"
                + "  'connector' = 'isthmus',\n"
                + "  'topic' = 'lines',\n"
                + "  'properties.bootstrap.servers' = '" + BROKER.bootstrapServers() + "',\n"
                + "  'format' = 'raw',\n"
                + "  'scan.startup.mode' = 'specific-offsets',\n"
                + "  'scan.startup.specific-offsets' = 'partition:0,offset:7;partition:1,offset:8',\n"
                + "  'scan.bounded.mode' = 'timestamp',\n"
                + "  'scan.bounded.timestamp-millis' = '10009'\n"
                + ")");
        final List<String> lines = new ArrayList<>();
        for (final Row row : collect(tables.executeSql("SELECT line FROM lines"))) {
            lines.add((String) row.getField(0));
        }
        assertThat(lines).containsExactlyInAnyOrder("a-7", "a-8", "b-8");

        tables.executeSql("CREATE TABLE csv_in (name STRING, n INT) WITH (\n"
                + "  'connector' = 'isthmus',\n"
                + "  'topic' = 'csv_out',\n"
                + "  'properties.bootstrap.servers' = '" + BROKER.bootstrapServers() + "',\n"
                + "  'format' = 'csv',\n"
                + "  'scan.startup.mode' = 'earliest-offset',\n"
                + "  'scan.bounded.mode' = 'latest-offset'\n"
                + ")");
        BROKER.createTopic("csv_out", 1);
        tables.executeSql("INSERT INTO csv_in VALUES ('one', 1), ('two', 2)").await();
        final List<Row> rows = collect(tables.executeSql("SELECT name, n FROM csv_in"));
        assertThat(rows).extracting(r -> r.getField(0) + "=" + r.getField(1)).containsExactly("one=1", "two=2");
    }

    @Test
    void shouldInsertExactlyOnceAndSelectReadCommitted() throws Exception {
        BROKER.createTopic("ledger", 1);
        final StreamTableEnvironment tables = tables();
        tables.executeSql("CREATE TABLE ledger (entry STRING) WITH (\n"
                + "  'connector' = 'isthmus',\n"
                + "  'topic' = 'ledger',\n"
                + "  'properties.bootstrap.servers' = '" + BROKER.bootstrapServers() + "',\n"
                + "  'properties.isolation.level' = 'read_committed',\n"
                + "  'format' = 'raw',\n"
                + "  'sink.delivery-guarantee' = 'exactly-once',\n"
                + "  'sink.transactional-id-prefix' = 'ledger-sql',\n"
                + "  'scan.startup.mode' = 'earliest-offset',\n"
                + "  'scan.bounded.mode' = 'latest-offset'\n"
                + ")");
        tables.executeSql("INSERT INTO ledger VALUES ('debit'), ('credit'), ('fee')")
                .await();

        final List<Row> rows = collect(tables.executeSql("SELECT entry FROM ledger"));
        assertThat(rows).extracting(row -> row.getField(0)).containsExactly("debit", "credit", "fee");
        try (IsthmusConsumer consumer =
                new IsthmusConsumer(Map.of("bootstrap.servers", BROKER.bootstrapServers(), "transport", "tcp"))) {
            final TopicPartition ledger = new TopicPartition("ledger", 0);
            assertThat(consumer.endOffsets(List.of(ledger)).get(ledger))
                    .as("three records and the commit marker of their transaction")
                    .isEqualTo(4);
        }
    }

    @Test
    void shouldRefuseBadOptionsWithTheirNames() {
        final StreamTableEnvironment tables = tables();
        tables.executeSql("CREATE TABLE both_subscriptions (v STRING) WITH ('connector' = 'isthmus', 'topic' = 'a',"
                + " 'topic-pattern' = 'b.*', 'properties.bootstrap.servers' = 'localhost:1', 'format' = 'raw')");
        assertThatThrownBy(() -> tables.executeSql("SELECT * FROM both_subscriptions"))
                .hasStackTraceContaining("exactly one of 'topic' and 'topic-pattern'");
        tables.executeSql("CREATE TABLE bad_offsets (v STRING) WITH ('connector' = 'isthmus', 'topic' = 'a',"
                + " 'properties.bootstrap.servers' = 'localhost:1', 'format' = 'raw',"
                + " 'scan.startup.mode' = 'specific-offsets', 'scan.startup.specific-offsets' = 'partition:x')");
        assertThatThrownBy(() -> tables.executeSql("SELECT * FROM bad_offsets"))
                .hasStackTraceContaining("invalid 'scan.startup.specific-offsets'");
        tables.executeSql("CREATE TABLE exactly (v STRING) WITH ('connector' = 'isthmus', 'topic' = 'a',"
                + " 'properties.bootstrap.servers' = 'localhost:1', 'format' = 'raw',"
                + " 'sink.delivery-guarantee' = 'exactly-once')");
        assertThatThrownBy(() -> tables.executeSql("INSERT INTO exactly VALUES ('x')"))
                .hasStackTraceContaining("needs 'sink.transactional-id-prefix'");
        tables.executeSql("CREATE TABLE typo (v STRING) WITH ('connector' = 'isthmus', 'topic' = 'a',"
                + " 'properties.bootstrap.servers' = 'localhost:1', 'format' = 'raw', 'scan.startup.mdoe' = 'x')");
        assertThatThrownBy(() -> tables.executeSql("SELECT * FROM typo")).hasStackTraceContaining("scan.startup.mdoe");
    }
}
