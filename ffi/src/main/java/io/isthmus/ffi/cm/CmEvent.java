package io.isthmus.ffi.cm;

/**
 * A connection-manager event ({@code struct rdma_cm_event}), copied out and already acknowledged.
 *
 * @param type {@code event}
 * @param status {@code status} (0, or a negative errno / a reject reason)
 * @param id the id the event is about; for CONNECT_REQUEST a new id for the incoming connection
 * @param listenId the listening id for CONNECT_REQUEST, else null
 * @param privateData the peer's private data ({@code param.conn}); for some transports padded
 *     with zeros to the maximum length
 */
public record CmEvent(CmEventType type, int status, CmId id, CmId listenId, byte[] privateData) {
    public CmEvent {
        privateData = privateData.clone();
    }

    @Override
    public byte[] privateData() {
        return privateData.clone();
    }
}
