package io.isthmus.broker.topic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.isthmus.broker.topic.TopicRegistry.TopicInfo;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TopicRegistryTest {
    @TempDir
    Path tmp;

    @Test
    void shouldStartEmpty() {
        assertThat(TopicRegistry.open(tmp).topics()).isEmpty();
    }

    @Test
    void shouldFindACreatedTopicByNameAndById() {
        final TopicRegistry registry = TopicRegistry.open(tmp);

        final TopicInfo created = registry.create("orders", 3);

        assertThat(created.name()).isEqualTo("orders");
        assertThat(created.partitions()).isEqualTo(3);
        assertThat(created.id()).isNotEqualTo(Uuid.ZERO_UUID);
        assertThat(registry.byName("orders")).contains(created);
        assertThat(registry.byId(created.id())).contains(created);
        assertThat(registry.topics()).containsExactly(created);
    }

    @Test
    void shouldKeepTopicsAcrossReopen() {
        final TopicRegistry registry = TopicRegistry.open(tmp);
        final TopicInfo orders = registry.create("orders", 3);
        final TopicInfo payments = registry.create("payments.v1_x-y", 1);
        registry.create("gone", 2);
        registry.delete("gone");

        final TopicRegistry reopened = TopicRegistry.open(tmp);

        assertThat(reopened.topics()).containsExactlyInAnyOrder(orders, payments);
        assertThat(reopened.byId(orders.id())).contains(orders);
        assertThat(reopened.byName("gone")).isEmpty();
    }

    @Test
    void shouldForgetADeletedTopicByNameAndById() {
        final TopicRegistry registry = TopicRegistry.open(tmp);
        final TopicInfo created = registry.create("orders", 1);

        assertThat(registry.delete("orders")).isEqualTo(created);

        assertThat(registry.byName("orders")).isEmpty();
        assertThat(registry.byId(created.id())).isEmpty();
    }

    @Test
    void shouldGiveARecreatedTopicANewId() {
        final TopicRegistry registry = TopicRegistry.open(tmp);
        final TopicInfo first = registry.create("orders", 1);
        registry.delete("orders");

        final TopicInfo second = registry.create("orders", 1);

        assertThat(second.id()).isNotEqualTo(first.id());
    }

    @Test
    void shouldRefuseAnExistingName() {
        final TopicRegistry registry = TopicRegistry.open(tmp);
        registry.create("orders", 1);

        assertThatThrownBy(() -> registry.create("orders", 2)).isInstanceOf(TopicExistsException.class);
        assertThat(registry.byName("orders").orElseThrow().partitions()).isEqualTo(1);
    }

    @Test
    void shouldRaiseAPartitionCountDurablyAndKeepTheId() {
        final TopicRegistry registry = TopicRegistry.open(tmp);
        final TopicInfo created = registry.create("orders", 2);

        final TopicInfo grown = registry.increasePartitions("orders", 5);

        assertThat(grown).isEqualTo(new TopicInfo("orders", created.id(), 5));
        assertThat(registry.byId(created.id())).contains(grown);
        assertThat(TopicRegistry.open(tmp).byName("orders")).contains(grown);
    }

    @Test
    void shouldRefuseACountThatIsNoIncreaseOrAnUnknownTopic() {
        final TopicRegistry registry = TopicRegistry.open(tmp);
        registry.create("orders", 3);

        assertThatThrownBy(() -> registry.increasePartitions("orders", 3))
                .isInstanceOf(InvalidPartitionsException.class)
                .hasMessage("topic 'orders' already has 3 partitions; the new count must be larger");
        assertThatThrownBy(() -> registry.increasePartitions("orders", 2))
                .isInstanceOf(InvalidPartitionsException.class)
                .hasMessage("topic 'orders' currently has 3 partitions; 2 would not be an increase");
        assertThatThrownBy(() -> registry.checkIncrease("nope", 2))
                .isInstanceOf(UnknownTopicOrPartitionException.class)
                .hasMessageContaining("'nope'");
        assertThat(TopicRegistry.open(tmp).byName("orders").orElseThrow().partitions())
                .isEqualTo(3);
    }

    @Test
    void shouldRefuseToDeleteAnUnknownTopic() {
        assertThatThrownBy(() -> TopicRegistry.open(tmp).delete("nope"))
                .isInstanceOf(UnknownTopicOrPartitionException.class);
    }

    @Test
    void shouldRefuseNamesKafkaRefuses() {
        final TopicRegistry registry = TopicRegistry.open(tmp);
        for (final String name : new String[] {"", ".", "..", "a b", "a/b", "tab\tname", "x".repeat(250), "ü"}) {
            assertThatThrownBy(() -> registry.create(name, 1))
                    .as("name '%s'", name)
                    .isInstanceOf(InvalidTopicException.class);
        }
        assertThat(registry.topics()).isEmpty();
    }

    @Test
    void shouldRefuseFewerThanOnePartition() {
        assertThatThrownBy(() -> TopicRegistry.open(tmp).create("orders", 0))
                .isInstanceOf(InvalidPartitionsException.class);
    }

    @Test
    void shouldNameFileAndLineOfALineWithMissingFields() throws Exception {
        final Path file = tmp.resolve("isthmus-topics");
        Files.writeString(file, Uuid.randomUuid() + " 1 orders\n" + "garbage\n");

        assertThatThrownBy(() -> TopicRegistry.open(tmp))
                .hasMessageContaining(file.toString())
                .hasMessageContaining("line=2");
    }

    @Test
    void shouldNameFileAndLineOfALineWithBadValues() throws Exception {
        final Path file = tmp.resolve("isthmus-topics");
        Files.writeString(file, "\n" + "not-a-uuid 1 orders\n");
        final Path other = tmp.resolve("other");
        Files.createDirectories(other);
        Files.writeString(other.resolve("isthmus-topics"), Uuid.randomUuid() + " many orders\n");

        assertThatThrownBy(() -> TopicRegistry.open(tmp))
                .hasMessageContaining(file.toString())
                .hasMessageContaining("line=2");
        assertThatThrownBy(() -> TopicRegistry.open(other))
                .hasMessageContaining(other.resolve("isthmus-topics").toString())
                .hasMessageContaining("line=1");
    }
}
