package io.isthmus.example.flink;

/** What the demo's job writes: per user and event-time window, how many clicks and their total amount. */
public final class WindowCount {
    public int user;
    public long windowStart;
    public long windowEnd;
    public long clicks;
    public long amount;

    public WindowCount() {}

    WindowCount(final int user, final long windowStart, final long windowEnd, final long clicks, final long amount) {
        this.user = user;
        this.windowStart = windowStart;
        this.windowEnd = windowEnd;
        this.clicks = clicks;
        this.amount = amount;
    }

    /** The record value the sink writes: {@code user,windowStart,clicks,amount}. */
    String toCsv() {
        return user + "," + windowStart + "," + clicks + "," + amount;
    }
}
