package io.isthmus.client.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class RangeAssignorTest {
    @Test
    void shouldGiveTheFirstMembersOneExtraPartition() {
        final Map<String, List<TopicPartition>> assignment =
                RangeAssignor.assign(Map.of("b", List.of("t"), "a", List.of("t"), "c", List.of("t")), Map.of("t", 7));
        assertThat(assignment.get("a"))
                .containsExactly(new TopicPartition("t", 0), new TopicPartition("t", 1), new TopicPartition("t", 2));
        assertThat(assignment.get("b")).containsExactly(new TopicPartition("t", 3), new TopicPartition("t", 4));
        assertThat(assignment.get("c")).containsExactly(new TopicPartition("t", 5), new TopicPartition("t", 6));
    }

    @Test
    void shouldAssignEachTopicOnlyAmongItsSubscribers() {
        final Map<String, List<TopicPartition>> assignment =
                RangeAssignor.assign(Map.of("a", List.of("x", "y"), "b", List.of("y")), Map.of("x", 2, "y", 2));
        assertThat(assignment.get("a"))
                .containsExactlyInAnyOrder(
                        new TopicPartition("x", 0), new TopicPartition("x", 1), new TopicPartition("y", 0));
        assertThat(assignment.get("b")).containsExactly(new TopicPartition("y", 1));
    }

    @Test
    void shouldLeaveSurplusMembersEmptyAndSkipUnknownTopics() {
        final Map<String, List<TopicPartition>> assignment = RangeAssignor.assign(
                Map.of("a", List.of("t", "missing"), "b", List.of("t"), "c", List.of("t")), Map.of("t", 2));
        assertThat(assignment.get("a")).containsExactly(new TopicPartition("t", 0));
        assertThat(assignment.get("b")).containsExactly(new TopicPartition("t", 1));
        assertThat(assignment.get("c")).isEmpty();
    }
}
