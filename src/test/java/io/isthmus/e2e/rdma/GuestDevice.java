package io.isthmus.e2e.rdma;

/**
 * The RDMA device the suite runs on: the guest's Soft-RoCE {@code rxe0} and its IPv4-mapped GID, unless {@code
 * ISTHMUS_RDMA_DEVICE} and {@code ISTHMUS_RDMA_GID_INDEX} name another (real hardware).
 */
public final class GuestDevice {
    private GuestDevice() {}

    public static String name() {
        return env("ISTHMUS_RDMA_DEVICE", "rxe0");
    }

    public static String gidIndex() {
        return env("ISTHMUS_RDMA_GID_INDEX", "1");
    }

    private static String env(final String name, final String fallback) {
        final String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }
}
