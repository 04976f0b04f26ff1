/**
 * The client side of the shared-memory datapath ({@code transport=shm}): a session with a broker on this host ({@link
 * io.isthmus.client.shm.ShmConnection}) and the consumer transport that maps granted segment files read-only and hands
 * their committed batches out in place ({@link io.isthmus.client.shm.ShmConsumerTransport}).
 */
package io.isthmus.client.shm;
