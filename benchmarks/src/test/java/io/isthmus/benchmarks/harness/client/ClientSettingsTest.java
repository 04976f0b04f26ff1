package io.isthmus.benchmarks.harness.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ClientSettingsTest {
    private static ClientSettings settings(final String acks, final int transactionRecords, final String isolation) {
        return new ClientSettings("127.0.0.1:9092", "t", 1, acks, 5, 65536, 5, 500, transactionRecords, isolation);
    }

    @Test
    void transactionsNeedAcksAll() {
        assertThat(settings("all", 1000, "read_uncommitted").transactional()).isTrue();
        assertThat(settings("1", 0, "read_uncommitted").transactional()).isFalse();
        assertThatThrownBy(() -> settings("1", 1000, "read_uncommitted"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("acks=all");
        assertThatThrownBy(() -> settings("all", -1, "read_uncommitted")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void isolationIsOneOfKafkasTwoLevels() {
        assertThat(settings("1", 0, "read_committed").readCommitted()).isTrue();
        assertThat(settings("1", 0, "read_uncommitted").readCommitted()).isFalse();
        assertThatThrownBy(() -> settings("1", 0, "READ_COMMITTED")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void derivedSettingsKeepTransactionsAndIsolation() {
        final ClientSettings base = settings("all", 1000, "read_committed");
        assertThat(base.withTopic("other").transactionRecords()).isEqualTo(1000);
        assertThat(base.withTopic("other").isolation()).isEqualTo("read_committed");
        assertThat(base.unbatched().transactionRecords()).isEqualTo(1000);
    }
}
