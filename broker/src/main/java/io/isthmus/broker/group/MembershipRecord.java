package io.isthmus.broker.group;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The record a group's {@link GroupMembership} is written as in {@code __consumer_offsets}, beside its offsets (whose
 * keys have version 0): the last one of a group wins. Big-endian; strings in UTF-8 with a 16-bit length, -1 for null;
 * byte arrays with a 32-bit length.
 *
 * <pre>
 *   key:    version:int16 (2, Kafka's for group metadata) | group:string
 *   value:  version:int16 (0) | protocolType:string | generation:int32 | protocol:string | leader:string
 *           | memberCount:int32 | member*
 *   member: memberId:string | groupInstanceId:string | clientId:string | clientHost:string
 *           | sessionTimeoutMs:int32 | rebalanceTimeoutMs:int32 | subscription:bytes | assignment:bytes
 * </pre>
 */
final class MembershipRecord {
    /** The key version that tells a membership record from an offset record. */
    static final short KEY_VERSION = 2;

    private static final short VALUE_VERSION = 0;

    private MembershipRecord() {}

    static byte[] key(final String groupId) {
        final byte[] group = groupId.getBytes(StandardCharsets.UTF_8);
        final ByteBuffer key = ByteBuffer.allocate(Short.BYTES + Short.BYTES + group.length);
        key.putShort(KEY_VERSION);
        putString(key, group);
        return key.array();
    }

    /** The group a membership key names; {@code key} is past its version. */
    static String groupOf(final ByteBuffer key) {
        return readString(key);
    }

    static byte[] value(final GroupMembership membership) {
        final List<byte[]> strings = new ArrayList<>();
        int size = Short.BYTES + Integer.BYTES + Integer.BYTES;
        size += encoded(membership.protocolType(), strings);
        size += encoded(membership.protocolName(), strings);
        size += encoded(membership.leaderId(), strings);
        for (final GroupMembership.Member member : membership.members()) {
            size += encoded(member.memberId(), strings);
            size += encoded(member.groupInstanceId(), strings);
            size += encoded(member.clientId(), strings);
            size += encoded(member.clientHost(), strings);
            size += 4 * Integer.BYTES + member.subscription().length + member.assignment().length;
        }
        final ByteBuffer value = ByteBuffer.allocate(size);
        int next = 0;
        value.putShort(VALUE_VERSION);
        putString(value, strings.get(next++));
        value.putInt(membership.generationId());
        putString(value, strings.get(next++));
        putString(value, strings.get(next++));
        value.putInt(membership.members().size());
        for (final GroupMembership.Member member : membership.members()) {
            for (int i = 0; i < 4; i++) {
                putString(value, strings.get(next++));
            }
            value.putInt(member.sessionTimeoutMs());
            value.putInt(member.rebalanceTimeoutMs());
            value.putInt(member.subscription().length).put(member.subscription());
            value.putInt(member.assignment().length).put(member.assignment());
        }
        return value.array();
    }

    static GroupMembership read(final String groupId, final ByteBuffer value) {
        final short version = value.getShort();
        if (version != VALUE_VERSION) {
            throw new IllegalStateException(
                    "unknown group membership value version " + version + " of group " + groupId);
        }
        final String protocolType = readString(value);
        final int generation = value.getInt();
        final String protocol = readString(value);
        final String leader = readString(value);
        final int count = value.getInt();
        if (count < 0 || count > value.remaining()) {
            throw new IllegalStateException(
                    "malformed group membership of group " + groupId + ": " + count + " members");
        }
        final List<GroupMembership.Member> members = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            members.add(new GroupMembership.Member(
                    readString(value),
                    readString(value),
                    readString(value),
                    readString(value),
                    value.getInt(),
                    value.getInt(),
                    readBytes(value),
                    readBytes(value)));
        }
        return new GroupMembership(groupId, protocolType, generation, protocol, leader, members);
    }

    /** Adds the string's bytes (null for a null string) and returns its encoded size. */
    private static int encoded(final String string, final List<byte[]> into) {
        final byte[] bytes = string == null ? null : string.getBytes(StandardCharsets.UTF_8);
        into.add(bytes);
        return Short.BYTES + (bytes == null ? 0 : bytes.length);
    }

    private static void putString(final ByteBuffer buffer, final byte[] bytes) {
        if (bytes == null) {
            buffer.putShort((short) -1);
            return;
        }
        if (bytes.length > Short.MAX_VALUE) {
            throw new IllegalArgumentException(
                    "string longer than " + Short.MAX_VALUE + " bytes in a membership record");
        }
        buffer.putShort((short) bytes.length);
        buffer.put(bytes);
    }

    private static String readString(final ByteBuffer buffer) {
        final int length = buffer.getShort();
        if (length == -1) {
            return null;
        }
        if (length < 0 || length > buffer.remaining()) {
            throw new IllegalStateException(
                    "malformed membership record: string of " + length + " bytes, " + buffer.remaining() + " left");
        }
        final String s = new String(buffer.array(), buffer.position(), length, StandardCharsets.UTF_8);
        buffer.position(buffer.position() + length);
        return s;
    }

    private static byte[] readBytes(final ByteBuffer buffer) {
        final int length = buffer.getInt();
        if (length < 0 || length > buffer.remaining()) {
            throw new IllegalStateException(
                    "malformed membership record: " + length + " bytes, " + buffer.remaining() + " left");
        }
        final byte[] bytes = new byte[length];
        buffer.get(bytes);
        return bytes;
    }
}
