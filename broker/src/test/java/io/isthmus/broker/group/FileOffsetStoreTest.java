package io.isthmus.broker.group;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileOffsetStoreTest {
    @TempDir
    Path tmp;

    private static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);
    private static final TopicPartition ORDERS_1 = new TopicPartition("orders", 1);
    private static final TopicPartition PAYMENTS_0 = new TopicPartition("payments", 0);

    @Test
    void shouldReturnNothingForAGroupThatNeverCommitted() {
        assertThat(FileOffsetStore.open(tmp).committed("nobody")).isEmpty();
    }

    @Test
    void shouldKeepCommitsAcrossReopen() {
        final CommittedOffset first = new CommittedOffset(10, 2, "meta", 1000);
        final CommittedOffset second = new CommittedOffset(20, -1, "", 2000);
        try (FileOffsetStore store = FileOffsetStore.open(tmp)) {
            store.commit("group", Map.of(ORDERS_0, first));
            store.commit("group", Map.of(ORDERS_1, second));
        }

        final FileOffsetStore reopened = FileOffsetStore.open(tmp);

        assertThat(reopened.committed("group")).containsOnly(Map.entry(ORDERS_0, first), Map.entry(ORDERS_1, second));
    }

    @Test
    void shouldLetTheLaterCommitOfAPartitionWin() {
        final FileOffsetStore store = FileOffsetStore.open(tmp);
        store.commit("group", Map.of(ORDERS_0, new CommittedOffset(10, 0, "", 1)));
        store.commit("group", Map.of(ORDERS_0, new CommittedOffset(11, 0, "later", 2)));

        assertThat(FileOffsetStore.open(tmp).committed("group"))
                .containsOnly(Map.entry(ORDERS_0, new CommittedOffset(11, 0, "later", 2)));
    }

    @Test
    void shouldKeepMetadataWithTabsNewlinesAndUnicode() {
        final String metadata = "a\tb\nc\r\nd ☃ 日本 \u0000 end";
        FileOffsetStore.open(tmp).commit("group", Map.of(ORDERS_0, new CommittedOffset(1, 0, metadata, 5)));

        assertThat(FileOffsetStore.open(tmp).committed("group").get(ORDERS_0).metadata())
                .isEqualTo(metadata);
    }

    @Test
    void shouldKeepGroupIdsWithAnyCharacters() {
        final String[] groupIds = {"plain", "with/slash", "../escape", "tab\tand\nnewline", "日本語グループ", "a b*?:", "."};
        final FileOffsetStore store = FileOffsetStore.open(tmp);
        for (int i = 0; i < groupIds.length; i++) {
            store.commit(groupIds[i], Map.of(ORDERS_0, new CommittedOffset(i, 0, "", i)));
        }

        final FileOffsetStore reopened = FileOffsetStore.open(tmp);

        for (int i = 0; i < groupIds.length; i++) {
            assertThat(reopened.committed(groupIds[i]).get(ORDERS_0).offset())
                    .as(groupIds[i])
                    .isEqualTo(i);
        }
    }

    @Test
    void shouldKeepAGroupIdLongerThanAFileNameMayBe() {
        // Far past the usual 255-byte file-name limit once encoded.
        final String groupId = "consumers-of-".repeat(40) + "é".repeat(100);
        FileOffsetStore.open(tmp).commit(groupId, Map.of(ORDERS_0, new CommittedOffset(42, 0, "m", 1)));

        assertThat(FileOffsetStore.open(tmp).committed(groupId).get(ORDERS_0).offset())
                .isEqualTo(42);
    }

    @Test
    void shouldKeepGroupsApart() {
        final FileOffsetStore store = FileOffsetStore.open(tmp);
        store.commit("a", Map.of(ORDERS_0, new CommittedOffset(1, 0, "", 1)));
        store.commit("b", Map.of(ORDERS_0, new CommittedOffset(2, 0, "", 1)));

        assertThat(store.committed("a").get(ORDERS_0).offset()).isEqualTo(1);
        assertThat(store.committed("b").get(ORDERS_0).offset()).isEqualTo(2);
    }

    @Test
    void shouldForgetADeletedTopicInEveryGroupDurably() {
        final FileOffsetStore store = FileOffsetStore.open(tmp);
        store.commit(
                "a", Map.of(ORDERS_0, new CommittedOffset(1, 0, "", 1), PAYMENTS_0, new CommittedOffset(2, 0, "", 1)));
        store.commit("b", Map.of(ORDERS_1, new CommittedOffset(3, 0, "", 1)));

        store.deleteTopic("orders");

        assertThat(store.committed("a")).containsOnlyKeys(PAYMENTS_0);
        assertThat(store.committed("b")).isEmpty();
        final FileOffsetStore reopened = FileOffsetStore.open(tmp);
        assertThat(reopened.committed("a")).containsOnlyKeys(PAYMENTS_0);
        assertThat(reopened.committed("b")).isEmpty();
    }

    @Test
    void shouldLeaveNoTemporaryFilesBehind() throws Exception {
        final FileOffsetStore store = FileOffsetStore.open(tmp);
        store.commit("a", Map.of(ORDERS_0, new CommittedOffset(1, 0, "", 1)));
        store.commit("a", Map.of(ORDERS_0, new CommittedOffset(2, 0, "", 1)));

        try (Stream<Path> files = Files.list(tmp)) {
            assertThat(files.map(p -> p.getFileName().toString())).allMatch(name -> name.endsWith(".offsets"));
        }
    }

    @Test
    void shouldReturnASnapshotThatLaterCommitsDoNotChange() {
        final FileOffsetStore store = FileOffsetStore.open(tmp);
        store.commit("a", Map.of(ORDERS_0, new CommittedOffset(1, 0, "", 1)));
        final Map<TopicPartition, CommittedOffset> before = store.committed("a");

        store.commit("a", Map.of(ORDERS_1, new CommittedOffset(1, 0, "", 1)));

        assertThat(before).containsOnlyKeys(ORDERS_0);
    }

    @Test
    void aTornGroupFileIsSetAsideAndTheOtherGroupsLoad() throws Exception {
        final FileOffsetStore store = FileOffsetStore.open(tmp);
        store.commit("good", Map.of(new TopicPartition("t", 0), new CommittedOffset(42, 1, "m", 1000)));
        store.commit("torn", Map.of(new TopicPartition("t", 0), new CommittedOffset(7, 1, "m", 1000)));
        store.close();
        final Path torn;
        try (Stream<Path> files = Files.list(tmp)) {
            torn = files.filter(p -> {
                        try {
                            return Files.readString(p).contains("dG9ybg=="); // "torn" in Base64
                        } catch (final java.io.IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    })
                    .findFirst()
                    .orElseThrow();
        }
        Files.writeString(torn, "group\tdG9ybg==\nt\t0\t7"); // cut off mid-line, as a torn write leaves it
        Files.writeString(tmp.resolve("empty.offsets"), ""); // and an empty one

        final FileOffsetStore reopened = FileOffsetStore.open(tmp);

        assertThat(reopened.committed("good"))
                .containsEntry(new TopicPartition("t", 0), new CommittedOffset(42, 1, "m", 1000));
        assertThat(reopened.committed("torn")).isEmpty();
        try (Stream<Path> files = Files.list(tmp)) {
            assertThat(files.map(p -> p.getFileName().toString()).filter(n -> n.contains(".corrupt-")))
                    .hasSize(2);
        }
        // The group commits again, into a fresh file.
        reopened.commit("torn", Map.of(new TopicPartition("t", 0), new CommittedOffset(8, 1, "", 2000)));
        assertThat(FileOffsetStore.open(tmp).committed("torn")).containsKey(new TopicPartition("t", 0));
    }
}
