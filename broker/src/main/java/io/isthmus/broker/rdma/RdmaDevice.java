package io.isthmus.broker.rdma;

import io.isthmus.ffi.verbs.CompletionQueue;
import io.isthmus.ffi.verbs.Context;
import io.isthmus.ffi.verbs.Device;
import io.isthmus.ffi.verbs.DeviceList;
import io.isthmus.ffi.verbs.Gid;
import io.isthmus.ffi.verbs.Mtu;
import io.isthmus.ffi.verbs.PortAttributes;
import io.isthmus.ffi.verbs.PortState;
import io.isthmus.ffi.verbs.ProtectionDomain;

/**
 * The broker's verbs resources on one device port: context, the protection domain of the broker's own queue pairs
 * (its loopback atomics; each client session has a domain of its own, see {@link RdmaSession}), and the one completion
 * queue of the datapath thread. Closed in reverse order.
 */
final class RdmaDevice implements AutoCloseable {
    final DeviceList devices;
    final Context context;
    final ProtectionDomain pd;
    final CompletionQueue cq;
    final int port;
    final int gidIndex;
    final Gid gid;
    final Mtu mtu;
    final int lid;
    final int maxReadAtomic;

    private RdmaDevice(
            final DeviceList devices,
            final Context context,
            final ProtectionDomain pd,
            final CompletionQueue cq,
            final int port,
            final int gidIndex,
            final Gid gid,
            final PortAttributes attributes,
            final int maxReadAtomic) {
        this.devices = devices;
        this.context = context;
        this.pd = pd;
        this.cq = cq;
        this.port = port;
        this.gidIndex = gidIndex;
        this.gid = gid;
        this.mtu = attributes.activeMtu();
        this.lid = attributes.lid();
        this.maxReadAtomic = maxReadAtomic;
    }

    /**
     * Opens the configured device (or the first) and checks that its port is active and has the GID.
     *
     * @throws IllegalStateException saying why the device cannot serve
     */
    static RdmaDevice open(final RdmaSettings settings) {
        final DeviceList devices = DeviceList.open();
        Context context = null;
        ProtectionDomain pd = null;
        try {
            if (devices.devices().isEmpty()) {
                throw new IllegalStateException("no RDMA devices");
            }
            final Device device =
                    settings.device() == null ? devices.devices().getFirst() : devices.byName(settings.device());
            context = device.open();
            final PortAttributes port = context.queryPort(settings.port());
            if (port.state() != PortState.ACTIVE) {
                throw new IllegalStateException("RDMA port is not active: device=" + device.name() + " port="
                        + settings.port() + " state=" + port.state());
            }
            final Gid gid = context.queryGid(settings.port(), settings.gidIndex());
            if (gid.isZero() && port.lid() == 0) {
                throw new IllegalStateException("no GID at rdma.gid.index: device=" + device.name() + " port="
                        + settings.port() + " gidIndex=" + settings.gidIndex());
            }
            final int maxReadAtomic =
                    Math.max(1, Math.min(16, context.queryDevice().maxQpRdAtom()));
            pd = context.allocateProtectionDomain();
            final CompletionQueue cq = context.createCompletionQueue(settings.cqSize());
            return new RdmaDevice(
                    devices, context, pd, cq, settings.port(), settings.gidIndex(), gid, port, maxReadAtomic);
        } catch (final RuntimeException e) {
            if (pd != null) {
                pd.close();
            }
            if (context != null) {
                context.close();
            }
            devices.close();
            throw e;
        }
    }

    String deviceName() {
        return context.deviceName();
    }

    @Override
    public void close() {
        cq.close();
        pd.close();
        context.close();
        devices.close();
    }
}
