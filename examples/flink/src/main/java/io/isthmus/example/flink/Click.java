package io.isthmus.example.flink;

/** One click of the demo's stream: a user, an amount, and the record's timestamp. A Flink POJO. */
public final class Click {
    public int user;
    public long amount;

    public Click() {}

    public Click(final int user, final long amount) {
        this.user = user;
        this.amount = amount;
    }
}
