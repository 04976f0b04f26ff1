package io.isthmus.protocol.record;

/** Receives each header of a record from {@link Record#forEachHeader(HeaderHandler)}; the {@link Header} is reused. */
@FunctionalInterface
public interface HeaderHandler {
    void onHeader(Header header);
}
