package io.isthmus.ffi.layout;

import java.lang.foreign.GroupLayout;
import java.util.List;

/**
 * Every C struct the binding declares, so that a test can compare each field's offset and size
 * with what a C compiler computes from the installed rdma-core headers. A layout added to the
 * binding must be added here; nested structs are covered through their parents.
 */
public final class StructRegistry {
    private static final List<GroupLayout> ALL = List.of(
            IbvGid.LAYOUT,
            IbvDevice.LAYOUT,
            IbvDeviceAttr.LAYOUT,
            IbvPortAttr.LAYOUT,
            IbvContext.LAYOUT,
            IbvContext.OPS_LAYOUT,
            IbvPd.LAYOUT,
            IbvMr.LAYOUT,
            IbvCompChannel.LAYOUT,
            IbvCq.LAYOUT,
            IbvQpCap.LAYOUT,
            IbvQpInitAttr.LAYOUT,
            IbvGlobalRoute.LAYOUT,
            IbvAhAttr.LAYOUT,
            IbvQpAttr.LAYOUT,
            IbvQp.LAYOUT,
            IbvSrq.LAYOUT,
            IbvSrqInitAttr.ATTR_LAYOUT,
            IbvSrqInitAttr.LAYOUT,
            IbvSge.LAYOUT,
            IbvSendWr.LAYOUT,
            IbvRecvWr.LAYOUT,
            IbvWc.LAYOUT,
            IbvAsyncEvent.LAYOUT,
            SockaddrIn.LAYOUT,
            SockaddrIn6.LAYOUT,
            RdmaEventChannel.LAYOUT,
            RdmaCmId.IB_ADDR_LAYOUT,
            RdmaCmId.ADDR_LAYOUT,
            RdmaCmId.ROUTE_LAYOUT,
            RdmaCmId.LAYOUT,
            RdmaConnParam.LAYOUT,
            RdmaCmEvent.UD_PARAM_LAYOUT,
            RdmaCmEvent.LAYOUT,
            Pollfd.LAYOUT);

    private StructRegistry() {}

    /** The top-level layouts, each named by its C type ({@code "struct ibv_wc"}, {@code "union ibv_gid"}). */
    public static List<GroupLayout> layouts() {
        return ALL;
    }

    /** The C type name of a registered layout. */
    public static String cType(GroupLayout layout) {
        return layout.name().orElseThrow(() -> new IllegalStateException("unnamed layout: " + layout));
    }
}
