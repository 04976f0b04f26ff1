/**
 * Talking to a consumer group's coordinator, shared by the consumer's group membership and by the admin client: the
 * coordinator connection ({@link io.isthmus.client.group.GroupCoordinatorClient}) and committed offsets ({@link
 * io.isthmus.client.group.GroupOffsets}).
 */
package io.isthmus.client.group;
