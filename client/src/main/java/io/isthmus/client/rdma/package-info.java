/**
 * What an RDMA client and the broker share: the isthmus control plane that runs over the Kafka-protocol TCP
 * connection ({@link io.isthmus.client.rdma.ControlApiKeys}, {@link io.isthmus.client.rdma.ControlHeaderDescriptor} and
 * one record per message, each documenting its byte layout), and the layouts of the one-sided datapaths: the
 * immediate of a produce WRITE WITH IMM ({@link io.isthmus.client.rdma.ProduceImmediateDescriptor}), the broker's
 * produce acknowledgement ({@link io.isthmus.client.rdma.ProduceAckDescriptor}), the RDMA-readable metadata slot
 * ({@link io.isthmus.client.rdma.MetadataSlotDescriptor}) and the 64-bit reservation word of shared produce ({@link
 * io.isthmus.client.rdma.SharedProduceWordDescriptor}).
 *
 * <p>The client side of the transport lives here too: {@link io.isthmus.client.rdma.RdmaConnection} (control socket
 * plus one RC queue pair), {@link io.isthmus.client.rdma.RdmaProducerTransport} (exclusive one-sided produce with
 * credits, acks and segment rolls) and {@link io.isthmus.client.rdma.RdmaConsumerTransport} (one slot READ per poll,
 * segment READs into registered buffers handed to the application in place).
 *
 * <p>Control messages are big-endian like the Kafka protocol they travel in. Words the NIC or the broker's CPU touch
 * in place (slots, acks, the reservation word) are little-endian, the byte order of the x86-64 and arm64 hosts that
 * run brokers, so the broker reads and writes them with plain aligned accesses and NIC atomics operate on them as
 * integers.
 */
package io.isthmus.client.rdma;
