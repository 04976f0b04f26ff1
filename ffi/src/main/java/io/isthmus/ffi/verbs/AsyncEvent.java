package io.isthmus.ffi.verbs;

/**
 * An asynchronous event of a device context ({@code struct ibv_async_event}), already acknowledged.
 *
 * @param type {@code event_type}
 * @param element the address of the affected CQ, QP, SRQ or WQ (0 for port events)
 * @param portNumber the affected port for port events, 0 otherwise
 */
public record AsyncEvent(AsyncEventType type, long element, int portNumber) {}
