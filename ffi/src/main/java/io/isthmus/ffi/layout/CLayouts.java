package io.isthmus.ffi.layout;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.PaddingLayout;
import java.lang.foreign.SequenceLayout;
import java.lang.foreign.StructLayout;
import java.lang.foreign.UnionLayout;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Builds memory layouts the way a C compiler lays out structs on LP64 (x86_64, aarch64):
 * every member at its natural alignment, the struct padded to its largest alignment.
 *
 * <p>Names: a top-level layout is named after its C type ({@code "struct ibv_send_wr"}); members
 * carry their C field names. Anonymous unions and structs get a name starting with
 * {@value #ANONYMOUS}, which the field walker treats as transparent, exactly as C does for
 * {@code offsetof(struct ibv_send_wr, imm_data)}.
 */
public final class CLayouts {
    /** Prefix of the name of an anonymous member (C11 anonymous struct/union). */
    public static final String ANONYMOUS = "$anon";

    public static final ValueLayout.OfByte U8 = ValueLayout.JAVA_BYTE;
    public static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT;
    public static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT;
    public static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
    public static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG;
    public static final ValueLayout.OfLong SIZE_T = ValueLayout.JAVA_LONG;
    public static final ValueLayout POINTER = ValueLayout.ADDRESS;

    /** {@code pthread_mutex_t} on x86_64 glibc: 40 bytes, 8-aligned, opaque to us. */
    public static final MemoryLayout PTHREAD_MUTEX =
            MemoryLayout.sequenceLayout(40, ValueLayout.JAVA_BYTE).withByteAlignment(8);
    /** {@code pthread_cond_t} on x86_64 glibc: 48 bytes, 8-aligned, opaque to us. */
    public static final MemoryLayout PTHREAD_COND =
            MemoryLayout.sequenceLayout(48, ValueLayout.JAVA_BYTE).withByteAlignment(8);

    private CLayouts() {}

    /** A C struct: inserts padding before members and at the end as a C compiler would. */
    public static StructLayout struct(String name, MemoryLayout... members) {
        List<MemoryLayout> laid = new ArrayList<>(members.length * 2);
        long offset = 0;
        long alignment = 1;
        for (MemoryLayout member : members) {
            long align = member.byteAlignment();
            alignment = Math.max(alignment, align);
            long aligned = roundUp(offset, align);
            if (aligned > offset) {
                laid.add(MemoryLayout.paddingLayout(aligned - offset));
            }
            laid.add(member);
            offset = aligned + member.byteSize();
        }
        long size = roundUp(offset, alignment);
        if (size > offset) {
            laid.add(MemoryLayout.paddingLayout(size - offset));
        }
        return MemoryLayout.structLayout(laid.toArray(MemoryLayout[]::new)).withName(name);
    }

    /** A C union: its size rounded up to its largest alignment. */
    public static UnionLayout union(String name, MemoryLayout... members) {
        long size = 0;
        long alignment = 1;
        for (MemoryLayout member : members) {
            size = Math.max(size, member.byteSize());
            alignment = Math.max(alignment, member.byteAlignment());
        }
        long padded = roundUp(size, alignment);
        MemoryLayout[] all = members;
        if (padded > size) {
            all = new MemoryLayout[members.length + 1];
            System.arraycopy(members, 0, all, 0, members.length);
            all[members.length] = MemoryLayout.paddingLayout(padded);
        }
        return MemoryLayout.unionLayout(all).withName(name);
    }

    /** A C array member, e.g. {@code char name[64]}. */
    public static SequenceLayout array(String name, long count, MemoryLayout element) {
        return MemoryLayout.sequenceLayout(count, element).withName(name);
    }

    /** An anonymous member name, unique within its parent. */
    public static String anonymous(String hint) {
        return ANONYMOUS + hint;
    }

    /** A named field of a struct: C path (dotted, anonymous members skipped), offset and size. */
    public record Field(String path, long offset, long size) {}

    /**
     * Every named member of {@code layout}, recursively, in declaration order: the C path, the
     * offset from the start of the top-level struct and the byte size. Anonymous members are
     * transparent; padding is skipped; arrays are not descended into.
     */
    public static List<Field> fields(GroupLayout layout) {
        List<Field> out = new ArrayList<>();
        walk(layout, "", 0, out);
        return out;
    }

    private static void walk(GroupLayout group, String prefix, long base, List<Field> out) {
        long offset = 0;
        for (MemoryLayout member : group.memberLayouts()) {
            long memberOffset = group instanceof StructLayout ? offset : 0;
            offset += member.byteSize();
            if (member instanceof PaddingLayout) {
                continue;
            }
            String name = member.name()
                    .orElseThrow(() -> new IllegalStateException(
                            "unnamed member in " + group.name().orElse("?") + " at offset " + memberOffset));
            boolean anonymous = name.startsWith(ANONYMOUS);
            String path = anonymous ? prefix : prefix + name;
            if (!anonymous) {
                out.add(new Field(path, base + memberOffset, member.byteSize()));
            }
            if (member instanceof GroupLayout nested) {
                walk(nested, anonymous ? prefix : path + ".", base + memberOffset, out);
            }
        }
    }

    /** The offset of the member at C path {@code path} (e.g. {@code "wr.rdma.remote_addr"}). */
    public static long offsetOf(GroupLayout layout, String path) {
        return field(layout, path).offset();
    }

    /** The named member at C path {@code path}; throws naming the struct when there is none. */
    public static Field field(GroupLayout layout, String path) {
        Map<String, Field> byPath = new LinkedHashMap<>();
        for (Field field : fields(layout)) {
            byPath.put(field.path(), field);
        }
        Field field = byPath.get(path);
        if (field == null) {
            throw new IllegalArgumentException(
                    "no field: struct=" + layout.name().orElse("?") + ", field=" + path);
        }
        return field;
    }

    private static long roundUp(long value, long alignment) {
        return (value + alignment - 1) / alignment * alignment;
    }
}
