package io.isthmus.ffi.verbs;

import io.isthmus.ffi.NativeLibrary;
import io.isthmus.ffi.NativeResource;
import io.isthmus.ffi.RdmaUnavailableException;
import io.isthmus.ffi.layout.IbvDevice;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * The RDMA devices of this host ({@code ibv_get_device_list}). Contexts opened from its devices
 * stay valid after the list is closed.
 */
public final class DeviceList extends NativeResource {
    private final MemorySegment list;
    private final List<Device> devices;

    private DeviceList(MemorySegment list, int count) {
        super("ibv_device_list");
        this.list = list;
        MemorySegment entries = list.reinterpret(ValueLayout.ADDRESS.byteSize() * count);
        List<Device> found = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            MemorySegment device = entries.getAtIndex(ValueLayout.ADDRESS, i).reinterpret(IbvDevice.LAYOUT.byteSize());
            found.add(new Device(this, device, device.getString(IbvDevice.NAME)));
        }
        this.devices = List.copyOf(found);
    }

    /**
     * Lists the devices.
     *
     * @throws RdmaUnavailableException when libibverbs is missing or the host has no RDMA device
     */
    public static DeviceList open() {
        Ibv.require();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment capture = NativeLibrary.allocateErrnoCapture(arena);
            MemorySegment count = arena.allocate(ValueLayout.JAVA_INT);
            MemorySegment list = (MemorySegment) Ibv.GET_DEVICE_LIST.invokeExact(capture, count);
            if (list.equals(MemorySegment.NULL)) {
                throw new RdmaUnavailableException("no RDMA devices (ibv_get_device_list returned NULL, errno="
                        + io.isthmus.ffi.Errno.name(NativeLibrary.errno(capture)) + ")");
            }
            return new DeviceList(list, count.get(ValueLayout.JAVA_INT, 0));
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    /** The devices, in the order libibverbs reports them. */
    public List<Device> devices() {
        checkOpen();
        return devices;
    }

    /** The device named {@code name} (e.g. {@code rxe0}). */
    public Device byName(String name) {
        for (Device device : devices()) {
            if (device.name().equals(name)) {
                return device;
            }
        }
        throw new IllegalArgumentException("no RDMA device: name=" + name + ", devices=" + devices);
    }

    void checkUsable() {
        checkOpen();
    }

    @Override
    protected String details() {
        return "devices=" + devices;
    }

    @Override
    protected void release() {
        try {
            Ibv.FREE_DEVICE_LIST.invokeExact(list);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }
}
