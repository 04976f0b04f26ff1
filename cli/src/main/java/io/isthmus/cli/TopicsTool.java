package io.isthmus.cli;

import io.isthmus.client.admin.IsthmusAdmin;
import io.isthmus.client.admin.TopicDescription;
import io.isthmus.client.cluster.PartitionMetadata;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code isthmus topics}: create, delete, list and describe topics (like kafka-topics). */
@Command(name = "topics", mixinStandardHelpOptions = true, description = "Create, delete, list or describe topics.")
public final class TopicsTool implements Callable<Integer> {
    @Option(names = "--bootstrap", required = true, description = "Broker address, host:port.")
    String bootstrap;

    @ArgGroup(exclusive = true, multiplicity = "1")
    Action action;

    static final class Action {
        @Option(names = "--create", description = "Create --topic.")
        boolean create;

        @Option(names = "--delete", description = "Delete --topic.")
        boolean delete;

        @Option(names = "--list", description = "List topics.")
        boolean list;

        @Option(names = "--describe", description = "Describe --topic (or all topics).")
        boolean describe;
    }

    @Option(names = "--topic", description = "The topic.")
    String topic;

    @Option(names = "--partitions", defaultValue = "1", description = "Partitions for --create.")
    int partitions;

    @Option(names = "--replication-factor", defaultValue = "1", description = "Replication factor for --create.")
    short replicationFactor;

    public static void main(final String[] args) {
        System.exit(new CommandLine(new TopicsTool()).execute(args));
    }

    @Override
    public Integer call() {
        try (IsthmusAdmin admin = new IsthmusAdmin(bootstrap)) {
            if (action.list) {
                admin.listTopics().forEach(System.out::println);
                return 0;
            }
            if (action.describe) {
                final List<String> names = topic != null ? List.of(topic) : List.copyOf(admin.listTopics());
                admin.describeTopics(names).values().stream()
                        .sorted(java.util.Comparator.comparing(TopicDescription::name))
                        .forEach(TopicsTool::print);
                return 0;
            }
            if (topic == null) {
                System.err.println("topics: --topic is required with --create and --delete");
                return 2;
            }
            if (action.create) {
                admin.createTopic(topic, partitions, replicationFactor);
                System.out.println("Created topic " + topic + ".");
            } else {
                admin.deleteTopics(List.of(topic));
                System.out.println("Deleted topic " + topic + ".");
            }
            return 0;
        } catch (final RuntimeException e) {
            System.err.println("topics: " + e.getMessage());
            return 1;
        }
    }

    private static void print(final TopicDescription d) {
        System.out.println(
                "Topic: " + d.name() + "\tTopicId: " + d.topicId() + "\tPartitionCount: " + d.partitionCount());
        for (final PartitionMetadata p : d.partitions()) {
            System.out.println("\tTopic: " + d.name() + "\tPartition: " + p.partition() + "\tLeader: " + p.leader()
                    + "\tReplicas: " + p.replicas() + "\tIsr: " + p.isr());
        }
    }
}
