/**
 * The client side of the RDMA transport, on the control protocol of {@link io.isthmus.protocol.control}: {@link
 * io.isthmus.client.rdma.RdmaConnection} (control socket plus one RC queue pair), {@link
 * io.isthmus.client.rdma.RdmaProducerTransport} (one-sided produce, exclusive or shared, with credits, acks, segment
 * rolls and retriable revocation) and {@link io.isthmus.client.rdma.RdmaConsumerTransport} (one slot READ per poll,
 * segment READs into registered buffers handed to the application in place).
 */
package io.isthmus.client.rdma;
