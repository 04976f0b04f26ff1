package io.isthmus.ffi.verbs;

import java.util.StringJoiner;

/** {@code enum ibv_access_flags}: bits of a memory region's or a queue pair's access rights. */
public final class AccessFlags {
    public static final int LOCAL_WRITE = 1;
    public static final int REMOTE_WRITE = 1 << 1;
    public static final int REMOTE_READ = 1 << 2;
    public static final int REMOTE_ATOMIC = 1 << 3;
    public static final int MW_BIND = 1 << 4;
    public static final int ZERO_BASED = 1 << 5;
    public static final int ON_DEMAND = 1 << 6;
    public static final int HUGETLB = 1 << 7;
    /** {@code IBV_ACCESS_RELAXED_ORDERING} ({@code IBV_ACCESS_OPTIONAL_FIRST}). */
    public static final int RELAXED_ORDERING = 1 << 20;
    /** {@code IBV_ACCESS_OPTIONAL_RANGE}: flags a kernel may ignore; need {@code ibv_reg_mr_iova2}. */
    public static final int OPTIONAL_RANGE = ((1 << 30) - 1) & ~((1 << 20) - 1);

    /** Everything a remote peer may do: write, read and atomics, plus local write. */
    public static final int ALL_REMOTE = LOCAL_WRITE | REMOTE_WRITE | REMOTE_READ | REMOTE_ATOMIC;

    private static final String[] NAMES = {
        "LOCAL_WRITE", "REMOTE_WRITE", "REMOTE_READ", "REMOTE_ATOMIC", "MW_BIND", "ZERO_BASED", "ON_DEMAND", "HUGETLB"
    };

    private AccessFlags() {}

    /** The flag names joined with {@code |}, e.g. {@code LOCAL_WRITE|REMOTE_WRITE}. */
    public static String toString(int flags) {
        StringJoiner joiner = new StringJoiner("|");
        for (int bit = 0; bit < NAMES.length; bit++) {
            if ((flags & (1 << bit)) != 0) {
                joiner.add(NAMES[bit]);
            }
        }
        if ((flags & RELAXED_ORDERING) != 0) {
            joiner.add("RELAXED_ORDERING");
        }
        int unknown = flags & ~((1 << NAMES.length) - 1) & ~RELAXED_ORDERING;
        if (unknown != 0) {
            joiner.add("0x" + Integer.toHexString(unknown));
        }
        return joiner.length() == 0 ? "0" : joiner.toString();
    }
}
