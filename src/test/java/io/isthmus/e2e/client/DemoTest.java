package io.isthmus.e2e.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.isthmus.broker.Broker;
import io.isthmus.cli.Demo;
import io.isthmus.cli.DemoOptions;
import io.isthmus.cli.DemoResult;
import io.isthmus.client.config.Transport;
import io.isthmus.e2e.EmbeddedBroker;
import io.isthmus.ffi.Rdma;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code isthmus demo} against an in-process isthmus broker. */
class DemoTest {
    private static final Pattern DEMO_LINE = Pattern.compile(
            "^demo: records=(\\d+) verified=(\\d+) failed=0 transport=(\\w+) produce_transport=(\\w+)"
                    + " produce_rec_s=(\\d+) consume_rec_s=(\\d+)"
                    + " heap_bytes_per_record=([0-9.]+)$",
            Pattern.MULTILINE);

    @TempDir
    static Path logDir;

    private static Broker broker;

    @BeforeAll
    static void startBroker() throws Exception {
        broker = EmbeddedBroker.start(logDir);
    }

    @AfterAll
    static void stopBroker() throws Exception {
        broker.close();
    }

    /** auto produces and consumes over shared memory with a broker on this host, before RDMA and TCP. */
    @ParameterizedTest
    @CsvSource({"AUTO, shm, shm", "SHM, shm, shm", "TCP, tcp, tcp"})
    void shouldVerifyEveryRecordAndEndWithTheDemoLine(
            final Transport asked, final String consumedOver, final String producedOver) {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream progress = new ByteArrayOutputStream();
        final DemoResult result = Demo.run(
                new DemoOptions(broker.bootstrapServers(), 50_000, 100, 3, asked, null),
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(progress, true, StandardCharsets.UTF_8));
        final String text = out.toString(StandardCharsets.UTF_8);
        final String[] lines = text.strip().split("\n");
        final Matcher matcher = DEMO_LINE.matcher(lines[lines.length - 1]);
        assertThat(matcher.matches()).as(text).isTrue();
        assertThat(matcher.group(1)).isEqualTo("50000");
        assertThat(matcher.group(2)).isEqualTo("50000");
        assertThat(matcher.group(3)).isEqualTo(consumedOver);
        assertThat(matcher.group(4)).isEqualTo(producedOver);
        assertThat(result.success()).isTrue();
        assertThat(text)
                .contains("produce latency")
                .contains("end-to-end latency")
                .contains("bytes/record");
    }

    @Test
    void shouldCountAndReportFailedSendsAndExitUnsuccessfully(@TempDir final Path smallSegments) throws Exception {
        // Every record is larger than a whole segment: the broker answers MESSAGE_TOO_LARGE, which is not retried.
        try (Broker small = EmbeddedBroker.start(smallSegments, "log.segment.bytes=65536")) {
            final ByteArrayOutputStream out = new ByteArrayOutputStream();
            final DemoResult result = Demo.run(
                    new DemoOptions(small.bootstrapServers(), 5, 100_000, 1, Transport.TCP, null),
                    new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
            final String text = out.toString(StandardCharsets.UTF_8);
            assertThat(result.failed()).as(text).isEqualTo(5);
            assertThat(result.verified()).isZero();
            assertThat(result.success()).isFalse();
            assertThat(result.firstError()).contains("MESSAGE_TOO_LARGE");
            assertThat(text)
                    .contains("failed    5 records not delivered; first error: ")
                    .contains("demo: records=5 verified=0 failed=5 transport=tcp");
        }
    }

    @Test
    void shouldRefuseRdmaWithAReasonWhereThereIsNoDevice() {
        // Where a device exists the RDMA demo runs instead (e2e.rdma, in the Soft-RoCE guest).
        assumeFalse(Rdma.availability().usable(), "this host has an RDMA device");
        assertThatThrownBy(() -> Demo.run(
                        new DemoOptions(broker.bootstrapServers(), 10, 100, 1, Transport.RDMA, null),
                        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)))
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("RDMA transport is not available");
    }
}
