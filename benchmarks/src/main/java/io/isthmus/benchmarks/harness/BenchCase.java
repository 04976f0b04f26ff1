package io.isthmus.benchmarks.harness;

import io.isthmus.benchmarks.harness.client.ClientLibrary;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One measured configuration, run once per pairing of client library and broker, each run on a fresh topic (a
 * preloaded topic is shared by the clients of one broker: they only read it).
 *
 * @param id unique, stable key in results.json (and the topic name's stem)
 * @param group the workload family, as {@code --only} names it
 * @param workload the client runner's workload
 * @param params what varies between cases of a group, for the report and the plots
 * @param partitions partitions of the case's topic
 * @param clientArgs the client runner's arguments, without bootstrap, topic and client library
 * @param preloadRecords records a kafka-clients produce run writes into the topic first (consume cases), 0 for none
 * @param timeout how long the client may take
 * @param pairings the client libraries and brokers it runs on, in report order
 * @param brokers how many brokers of each kind it runs on, as one cluster: its topic has a replica on each
 */
public record BenchCase(
        String id,
        String group,
        String workload,
        Map<String, Object> params,
        int partitions,
        List<String> clientArgs,
        long preloadRecords,
        Duration timeout,
        List<Pairing> pairings,
        int brokers) {

    public BenchCase {
        if (brokers < 1) {
            throw new IllegalArgumentException("case " + id + " needs at least one broker, got " + brokers);
        }
        params = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(params));
        clientArgs = List.copyOf(clientArgs);
        pairings = List.copyOf(pairings);
    }

    /** The client libraries this case runs against {@code broker}, in report order. */
    public List<ClientLibrary> clientsOn(final BrokerKind broker) {
        final List<ClientLibrary> clients = new ArrayList<>();
        for (final Pairing pairing : pairings) {
            if (pairing.broker() == broker) {
                clients.add(pairing.client());
            }
        }
        return clients;
    }

    /** The params as {@code key=value} text, in order. */
    public String describe() {
        final List<String> parts = new ArrayList<>();
        params.forEach((key, value) -> parts.add(key + "=" + value));
        return String.join(" ", parts);
    }

    /** An integer parameter. */
    public int intParam(final String key) {
        return ((Number) params.get(key)).intValue();
    }
}
