package io.isthmus.client.rdma;

/**
 * The broker of an RDMA connection could not be reached over its control connection, or that connection broke: a broker
 * that is down, restarting, or gone with its leaderships taken over by others. Unlike a refusal or a device failure,
 * this passes when the broker is back or the metadata names another leader, so a consumer's reader looks for its
 * partition's leader again instead of failing the poll.
 */
public class RdmaBrokerUnreachableException extends RdmaTransportException {
    public RdmaBrokerUnreachableException(final String message, final Throwable cause) {
        super(message, cause);
    }
}
