package io.isthmus.broker.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class LogConfigTest {

    @Test
    void shouldUseKafkaDefaults() {
        final LogConfig config = LogConfig.defaults();

        assertThat(config.segmentBytes()).isEqualTo(1 << 30);
        assertThat(config.indexIntervalBytes()).isEqualTo(4096);
        assertThat(config.indexSizeMaxBytes()).isEqualTo(10 * 1024 * 1024);
        assertThat(config.retentionMs()).isEqualTo(7L * 24 * 3600 * 1000);
        assertThat(config.retentionBytes()).isEqualTo(-1);
        assertThat(config.preallocate()).isTrue();
        assertThat(config.flushLeftToPageCache()).isTrue();
    }

    @Test
    void shouldParseKafkaNamedSettingsAndIgnoreUnknownKeys() {
        final LogConfig config = LogConfig.from(Map.of(
                "log.segment.bytes", " 65536 ",
                "log.roll.ms", "1000",
                "log.retention.ms", "-1",
                "log.retention.bytes", "123456",
                "log.index.interval.bytes", "128",
                "log.index.size.max.bytes", "8192",
                "flush.messages", "10",
                "flush.ms", "250",
                "log.preallocate", "FALSE",
                "bootstrap.servers", "ignored:9092"));

        assertThat(config.segmentBytes()).isEqualTo(65536);
        assertThat(config.rollMs()).isEqualTo(1000);
        assertThat(config.retentionMs()).isEqualTo(-1);
        assertThat(config.retentionBytes()).isEqualTo(123456);
        assertThat(config.indexIntervalBytes()).isEqualTo(128);
        assertThat(config.maxOffsetIndexEntries()).isEqualTo(1024);
        assertThat(config.maxTimeIndexEntries()).isEqualTo(682);
        assertThat(config.flushMessages()).isEqualTo(10);
        assertThat(config.flushMs()).isEqualTo(250);
        assertThat(config.preallocate()).isFalse();
        assertThat(config.flushLeftToPageCache()).isFalse();
    }

    @Test
    void shouldRejectBadValuesWithKeyValueAndRequirement() {
        assertThatThrownBy(() -> LogConfig.from(Map.of("log.segment.bytes", "1g")))
                .isInstanceOf(LogConfigException.class)
                .hasMessageContaining("key=log.segment.bytes")
                .hasMessageContaining("value=1g");
        assertThatThrownBy(() -> LogConfig.from(Map.of("log.segment.bytes", "100")))
                .isInstanceOf(LogConfigException.class)
                .hasMessageContaining("requirement=>= 1024");
        assertThatThrownBy(() -> LogConfig.from(Map.of("log.retention.ms", "-2")))
                .isInstanceOf(LogConfigException.class)
                .hasMessageContaining("key=log.retention.ms");
        assertThatThrownBy(() -> LogConfig.from(Map.of("log.preallocate", "yes")))
                .isInstanceOf(LogConfigException.class)
                .hasMessageContaining("true or false");
        assertThatThrownBy(() -> LogConfig.from(Map.of("flush.messages", "0")))
                .isInstanceOf(LogConfigException.class)
                .hasMessageContaining("key=flush.messages");
    }
}
