package io.isthmus.ffi.verbs;

import io.isthmus.ffi.NativeLibrary;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/** One entry of a {@link DeviceList}: valid while the list is open; {@link #open()} gives a {@link Context}. */
public final class Device {
    private final DeviceList list;
    private final MemorySegment device;
    private final String name;

    Device(DeviceList list, MemorySegment device, String name) {
        this.list = list;
        this.device = device;
        this.name = name;
    }

    /** The kernel device name, e.g. {@code rxe0} or {@code mlx5_0}. */
    public String name() {
        return name;
    }

    /** Opens the device ({@code ibv_open_device}). */
    public Context open() {
        list.checkUsable();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment capture = NativeLibrary.allocateErrnoCapture(arena);
            MemorySegment context = (MemorySegment) Ibv.OPEN_DEVICE.invokeExact(capture, device);
            Calls.checkPointer(context, capture, "ibv_open_device", "device=" + name);
            return new Context(context, name, true);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
