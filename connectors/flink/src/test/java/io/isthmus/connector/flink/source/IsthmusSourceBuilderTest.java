package io.isthmus.connector.flink.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.isthmus.connector.flink.source.enumerator.initializer.OffsetsInitializer;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class IsthmusSourceBuilderTest {
    private static IsthmusSourceBuilder<String> base() {
        return IsthmusSource.<String>builder()
                .setBootstrapServers("localhost:9092")
                .setValueOnlyDeserializer(new SimpleStringSchema());
    }

    @Test
    void shouldAllowExactlyOneSubscription() {
        assertThatThrownBy(() -> base().setTopics("a").setTopicPattern(Pattern.compile("b.*")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("exactly one subscription");
        assertThatThrownBy(() -> base().setTopicPattern(Pattern.compile("b.*"))
                        .setPartitions(Set.of(new TopicPartition("a", 0))))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> base().build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no subscription");
    }

    @Test
    void shouldRequireADeserializerAndBootstrapServers() {
        assertThatThrownBy(() -> IsthmusSource.<String>builder()
                        .setBootstrapServers("b:1")
                        .setTopics("a")
                        .build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no deserializer");
        assertThatThrownBy(() -> IsthmusSource.<String>builder()
                        .setTopics("a")
                        .setValueOnlyDeserializer(new SimpleStringSchema())
                        .build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no bootstrap servers");
    }

    @Test
    void shouldPassConsumerSettingsAndKafkaOnesWithoutMeaningAndEnforceItsOwn() {
        final Properties props = new Properties();
        props.setProperty("transport", "tcp");
        props.setProperty("max.partition.fetch.bytes", "4194304");
        props.setProperty("key.deserializer", "org.apache.kafka.common.serialization.ByteArrayDeserializer");
        props.setProperty("enable.auto.commit", "true");
        final IsthmusSource<String> source = base().setTopics("a")
                .setGroupId("g")
                .setProperties(props)
                .setStartingOffsets(OffsetsInitializer.latest())
                .build();
        assertThat(source.consumerSettings())
                .containsEntry("transport", "tcp")
                .containsEntry("max.partition.fetch.bytes", "4194304")
                .containsEntry("group.id", "g")
                .containsEntry("enable.auto.commit", "false")
                .containsEntry("auto.offset.reset", "latest")
                .doesNotContainKey("key.deserializer");
        assertThatThrownBy(() -> base().setTopics("a")
                        .setProperty("fetch.max.wiat.ms", "1")
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fetch.max.wiat.ms");
        assertThatThrownBy(() -> base().setTopics("a")
                        .setProperty("fetch.max.wait.ms", "soon")
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fetch.max.wait.ms");
    }

    @Test
    void shouldBeBoundedOnlyWithSetBounded() {
        assertThat(base().setTopics("a").build().getBoundedness()).isEqualTo(Boundedness.CONTINUOUS_UNBOUNDED);
        assertThat(base().setTopics("a")
                        .setUnbounded(OffsetsInitializer.latest())
                        .build()
                        .getBoundedness())
                .isEqualTo(Boundedness.CONTINUOUS_UNBOUNDED);
        assertThat(base().setTopics("a")
                        .setBounded(OffsetsInitializer.latest())
                        .build()
                        .getBoundedness())
                .isEqualTo(Boundedness.BOUNDED);
    }
}
