package io.isthmus.benchmarks.harness;

/** The two brokers compared. */
public enum BrokerKind {
    ISTHMUS("isthmus"),
    KAFKA("kafka");

    private final String label;

    BrokerKind(final String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }
}
