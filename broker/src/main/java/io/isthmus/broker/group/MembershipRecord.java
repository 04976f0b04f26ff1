package io.isthmus.broker.group;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The record a group's {@link GroupMembership} is written as in {@code __consumer_offsets}, beside its offsets ({@link OffsetRecord}s, whose
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
    private static final String RECORD = "membership record";

    private MembershipRecord() {}

    static byte[] key(final String groupId) {
        final byte[] group = groupId.getBytes(StandardCharsets.UTF_8);
        final ByteBuffer key = ByteBuffer.allocate(Short.BYTES + Short.BYTES + group.length);
        key.putShort(KEY_VERSION);
        RecordStrings.put(key, group, RECORD);
        return key.array();
    }

    /** The group a membership key names; {@code key} is past its version. */
    static String groupOf(final ByteBuffer key) {
        return RecordStrings.readNullable(key, RECORD);
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
        RecordStrings.put(value, strings.get(next++), RECORD);
        value.putInt(membership.generationId());
        RecordStrings.put(value, strings.get(next++), RECORD);
        RecordStrings.put(value, strings.get(next++), RECORD);
        value.putInt(membership.members().size());
        for (final GroupMembership.Member member : membership.members()) {
            for (int i = 0; i < 4; i++) {
                RecordStrings.put(value, strings.get(next++), RECORD);
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
        final String protocolType = RecordStrings.readNullable(value, RECORD);
        final int generation = value.getInt();
        final String protocol = RecordStrings.readNullable(value, RECORD);
        final String leader = RecordStrings.readNullable(value, RECORD);
        final int count = value.getInt();
        if (count < 0 || count > value.remaining()) {
            throw new IllegalStateException(
                    "malformed group membership of group " + groupId + ": " + count + " members");
        }
        final List<GroupMembership.Member> members = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            members.add(new GroupMembership.Member(
                    RecordStrings.readNullable(value, RECORD),
                    RecordStrings.readNullable(value, RECORD),
                    RecordStrings.readNullable(value, RECORD),
                    RecordStrings.readNullable(value, RECORD),
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

    private static byte[] readBytes(final ByteBuffer buffer) {
        final int length = buffer.getInt();
        if (length < 0 || length > buffer.remaining()) {
            throw new IllegalStateException(
                    "malformed " + RECORD + ": " + length + " bytes, " + buffer.remaining() + " left");
        }
        final byte[] bytes = new byte[length];
        buffer.get(bytes);
        return bytes;
    }
}
