package io.isthmus.metadata.quorum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.isthmus.metadata.image.BrokerEndpoint;
import io.isthmus.metadata.image.BrokerRegistration;
import io.isthmus.metadata.image.ClusterImage;
import io.isthmus.metadata.image.PartitionState;
import io.isthmus.metadata.image.TopicImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ImageSnapshotTest {
    @TempDir
    Path dir;

    private static ClusterImage image() {
        BrokerRegistration one = new BrokerRegistration(
                1,
                4,
                Uuid.randomUuid(),
                List.of(
                        new BrokerEndpoint("PLAINTEXT", "127.0.0.1", 9092, (short) 0),
                        new BrokerEndpoint("RDMA", "ünïcode-host", 9093, (short) 0)),
                null,
                false,
                false,
                7);
        BrokerRegistration two = new BrokerRegistration(2, 5, Uuid.randomUuid(), List.of(), "rack-b", true, false, 9);
        BrokerRegistration three = new BrokerRegistration(3, 6, Uuid.randomUuid(), List.of(), null, true, true, 6);
        TopicImage topic = new TopicImage(
                "orders",
                Uuid.randomUuid(),
                List.of(
                        new PartitionState(List.of(1, 2), List.of(1), 1, 3, 7),
                        new PartitionState(List.of(2, 1), List.of(2), PartitionState.NO_LEADER, 2, 5),
                        new PartitionState(List.of(3, 1, 2), List.of(1, 2), 1, 4, 9, List.of(3), List.of(2))));
        return new ClusterImage(42, Map.of(1, one, 2, two, 3, three), Map.of("orders", topic));
    }

    @Test
    void anImageRoundTripsThroughItsFile() throws IOException {
        ClusterImage image = image();
        Path file = dir.resolve("snapshot");

        ImageSnapshot.write(image, file);
        ClusterImage read = ImageSnapshot.read(file);

        assertThat(read).isEqualTo(image);
        assertThat(read.appliedIndex()).isEqualTo(42);
        assertThat(read.broker(1).orElseThrow().endpoints().get(1).host()).isEqualTo("ünïcode-host");
        assertThat(read.broker(1).orElseThrow().rack()).isNull();
        assertThat(Files.exists(dir.resolve("snapshot.tmp"))).isFalse();
    }

    @Test
    void everyFlippedByteAndEveryTruncationIsRefusedNamingTheFile() throws IOException {
        Path file = dir.resolve("snapshot");
        ImageSnapshot.write(image(), file);
        byte[] good = Files.readAllBytes(file);

        for (int i = 0; i < good.length; i++) {
            byte[] bad = good.clone();
            bad[i] ^= 0x10;
            Files.write(file, bad);
            assertThatThrownBy(() -> ImageSnapshot.read(file))
                    .as("byte %d flipped", i)
                    .hasMessageContaining(file.toString());
        }
        for (int length = 0; length < good.length; length++) {
            Files.write(file, Arrays.copyOf(good, length));
            assertThatThrownBy(() -> ImageSnapshot.read(file))
                    .as("cut at %d", length)
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining(file.toString());
        }
    }
}
