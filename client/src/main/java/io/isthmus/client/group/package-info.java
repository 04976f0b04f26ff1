/**
 * A consumer group's committed offsets ({@link io.isthmus.client.group.GroupOffsets}), read and written through the
 * group's coordinator ({@link io.isthmus.client.cluster.CoordinatorClient}); shared by the consumer's group membership
 * and by the admin client.
 */
package io.isthmus.client.group;
