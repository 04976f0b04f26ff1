/**
 * The isthmus control protocol, shared by the broker and its RDMA clients: the control plane that runs over the
 * Kafka-protocol TCP connection ({@link io.isthmus.protocol.control.ControlApiKeys}, {@link
 * io.isthmus.protocol.control.ControlHeaderDescriptor} and one {@link io.isthmus.protocol.control.ControlFlyweight
 * flyweight} per message, read and written in place in the frame, each documenting its byte layout),
 * and the layouts of the one-sided datapaths: the immediate of a produce WRITE WITH IMM ({@link
 * io.isthmus.protocol.control.ProduceImmediateDescriptor}), the broker's produce acknowledgement ({@link
 * io.isthmus.protocol.control.ProduceAckDescriptor}), the RDMA-readable metadata slot ({@link
 * io.isthmus.protocol.control.MetadataSlotDescriptor}) and the 64-bit reservation word of shared produce ({@link
 * io.isthmus.protocol.control.SharedProduceWordDescriptor}).
 *
 * <p>Control messages are big-endian like the Kafka protocol they travel in. Words the NIC or the broker's CPU touch
 * in place (slots, acks, the reservation word) are little-endian, the byte order of the x86-64 and arm64 hosts that
 * run brokers, so the broker reads and writes them with plain aligned accesses and NIC atomics operate on them as
 * integers.
 */
package io.isthmus.protocol.control;
