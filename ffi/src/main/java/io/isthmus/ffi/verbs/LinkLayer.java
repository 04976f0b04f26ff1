package io.isthmus.ffi.verbs;

/** {@code IBV_LINK_LAYER_*}: what a port runs over (RoCE ports report ETHERNET). */
public enum LinkLayer {
    UNSPECIFIED(0),
    INFINIBAND(1),
    ETHERNET(2);

    private static final LinkLayer[] BY_VALUE;

    static {
        int max = 0;
        for (LinkLayer constant : values()) {
            max = Math.max(max, constant.value);
        }
        BY_VALUE = new LinkLayer[max + 1];
        for (LinkLayer constant : values()) {
            BY_VALUE[constant.value] = constant;
        }
    }

    private final int value;

    LinkLayer(int value) {
        this.value = value;
    }

    /** The C enum value. */
    public int value() {
        return value;
    }

    /**
     * The constant for a C enum value; allocation-free.
     *
     * @throws IllegalArgumentException for a value the header does not define
     */
    public static LinkLayer of(int value) {
        LinkLayer constant = value >= 0 && value < BY_VALUE.length ? BY_VALUE[value] : null;
        if (constant == null) {
            throw new IllegalArgumentException("unknown LinkLayer value: value=" + value);
        }
        return constant;
    }
}
