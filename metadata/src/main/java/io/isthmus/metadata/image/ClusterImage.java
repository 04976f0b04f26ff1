package io.isthmus.metadata.image;

import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.kafka.common.Uuid;

/**
 * The cluster's metadata at one quorum log index: every registered broker and every topic.
 *
 * <p>Immutable: the state machine publishes a new image after each command it applies, so a reader holds a
 * consistent view for as long as it likes without locks. Brokers and topics are kept sorted, so two voters that
 * applied the same log hold equal images, and iteration order (which replica placement depends on) is the same on
 * every voter.
 */
public final class ClusterImage {
    public static final ClusterImage EMPTY = new ClusterImage(0, Map.of(), Map.of());

    private final long appliedIndex;
    private final SortedMap<Integer, BrokerRegistration> brokers;
    private final SortedMap<String, TopicImage> topics;
    private final Map<Uuid, TopicImage> topicsById;

    /**
     * @param appliedIndex the quorum log index of the last command this image includes (0: none)
     * @param brokers registered brokers by id
     * @param topics topics by name
     */
    public ClusterImage(long appliedIndex, Map<Integer, BrokerRegistration> brokers, Map<String, TopicImage> topics) {
        this.appliedIndex = appliedIndex;
        this.brokers = Collections.unmodifiableSortedMap(new TreeMap<>(brokers));
        this.topics = Collections.unmodifiableSortedMap(new TreeMap<>(topics));
        Map<Uuid, TopicImage> byId = new HashMap<>();
        for (TopicImage t : topics.values()) {
            TopicImage clash = byId.put(t.id(), t);
            if (clash != null) {
                throw new IllegalArgumentException(
                        "topics " + clash.name() + " and " + t.name() + " share id " + t.id());
            }
        }
        this.topicsById = Map.copyOf(byId);
    }

    public long appliedIndex() {
        return appliedIndex;
    }

    public SortedMap<Integer, BrokerRegistration> brokers() {
        return brokers;
    }

    public SortedMap<String, TopicImage> topics() {
        return topics;
    }

    public Optional<BrokerRegistration> broker(int id) {
        return Optional.ofNullable(brokers.get(id));
    }

    public Optional<TopicImage> topic(String name) {
        return Optional.ofNullable(topics.get(name));
    }

    public Optional<TopicImage> topic(Uuid id) {
        return Optional.ofNullable(topicsById.get(id));
    }

    /** Brokers that may lead and be in an ISR, by ascending id. */
    public Stream<BrokerRegistration> unfencedBrokers() {
        return brokers.values().stream().filter(b -> !b.fenced());
    }

    /** Whether {@code brokerId} is registered and unfenced under exactly {@code epoch}. */
    public boolean isActive(int brokerId, long epoch) {
        BrokerRegistration b = brokers.get(brokerId);
        return b != null && !b.fenced() && b.epoch() == epoch;
    }

    /** Equal when the brokers and topics are; the applied index is where the image came from, not what it holds. */
    @Override
    public boolean equals(Object o) {
        return o instanceof ClusterImage other && brokers.equals(other.brokers) && topics.equals(other.topics);
    }

    @Override
    public int hashCode() {
        return Objects.hash(brokers, topics);
    }

    @Override
    public String toString() {
        return "ClusterImage{applied=" + appliedIndex + ", brokers=" + brokers.values() + ", topics=" + topics.values()
                + "}";
    }
}
