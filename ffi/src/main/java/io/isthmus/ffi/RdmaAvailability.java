package io.isthmus.ffi;

import java.util.List;

/**
 * Whether RDMA can be used in this process, and if not, why.
 *
 * @param usable true when libibverbs loaded and reported at least one device
 * @param reason a human-readable explanation (also set when usable, e.g. "2 RDMA device(s)")
 * @param devices the names of the devices found (empty when unusable)
 * @param connectionManager true when librdmacm could be loaded as well
 */
public record RdmaAvailability(boolean usable, String reason, List<String> devices, boolean connectionManager) {
    public RdmaAvailability {
        devices = List.copyOf(devices);
    }

    /** An unusable answer with its reason. */
    public static RdmaAvailability unavailable(String reason, boolean connectionManager) {
        return new RdmaAvailability(false, reason, List.of(), connectionManager);
    }
}
