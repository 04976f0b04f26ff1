package io.isthmus.ffi.verbs;

/**
 * The state of a port ({@code struct ibv_port_attr}).
 *
 * @param state {@code state}
 * @param maxMtu {@code max_mtu}
 * @param activeMtu {@code active_mtu}: the MTU to use as a QP's path MTU
 * @param gidTableLength {@code gid_tbl_len}
 * @param portCapFlags {@code port_cap_flags}
 * @param maxMessageSize {@code max_msg_sz}
 * @param lid {@code lid} (0 on RoCE)
 * @param linkLayer {@code link_layer}
 */
public record PortAttributes(
        PortState state,
        Mtu maxMtu,
        Mtu activeMtu,
        int gidTableLength,
        int portCapFlags,
        long maxMessageSize,
        int lid,
        LinkLayer linkLayer) {}
