package io.isthmus.ffi.verbs;

import io.isthmus.ffi.layout.IbvGid;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.HexFormat;

/** A 128-bit global identifier ({@code union ibv_gid}); on RoCE an IPv6 or IPv4-mapped address. */
public final class Gid {
    private final byte[] raw;

    private Gid(byte[] raw) {
        this.raw = raw;
    }

    /** A GID from its 16 raw bytes (network order). */
    public static Gid of(byte[] raw) {
        if (raw.length != IbvGid.SIZE) {
            throw new IllegalArgumentException("a GID has 16 bytes: length=" + raw.length);
        }
        return new Gid(raw.clone());
    }

    /** Reads a GID stored at {@code offset} of {@code segment}. */
    public static Gid read(MemorySegment segment, long offset) {
        return new Gid(segment.asSlice(offset, IbvGid.SIZE).toArray(ValueLayout.JAVA_BYTE));
    }

    /** Writes this GID at {@code offset} of {@code segment}. */
    public void write(MemorySegment segment, long offset) {
        MemorySegment.copy(raw, 0, segment, ValueLayout.JAVA_BYTE, offset, raw.length);
    }

    /** The 16 raw bytes. */
    public byte[] raw() {
        return raw.clone();
    }

    /** Whether all bytes are zero (an unset table entry). */
    public boolean isZero() {
        for (byte b : raw) {
            if (b != 0) {
                return false;
            }
        }
        return true;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Gid gid && Arrays.equals(raw, gid.raw);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(raw);
    }

    /** Colon-separated groups of four hex digits, like an IPv6 address without compression. */
    @Override
    public String toString() {
        String hex = HexFormat.of().formatHex(raw);
        StringBuilder sb = new StringBuilder(39);
        for (int i = 0; i < hex.length(); i += 4) {
            if (i > 0) {
                sb.append(':');
            }
            sb.append(hex, i, i + 4);
        }
        return sb.toString();
    }
}
