/**
 * Cluster administration over the Kafka protocol: {@link io.isthmus.client.admin.IsthmusAdmin} creates, deletes, lists
 * and describes topics and looks up offsets, synchronously.
 */
package io.isthmus.client.admin;
