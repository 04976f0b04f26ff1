package io.isthmus.ffi;

import io.isthmus.ffi.layout.IbvDevice;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;

/**
 * Entry point answering whether RDMA is usable here. On a laptop without rdma-core, or a host
 * whose kernel has no RDMA support, {@link #availability()} says so with a reason; nothing throws
 * or prints.
 */
public final class Rdma {
    private Rdma() {}

    /** Probes libibverbs, its device list and librdmacm. Never throws for a missing library or device. */
    public static RdmaAvailability availability() {
        boolean cm = NativeLibrary.RDMACM.isLoaded();
        if (!NativeLibrary.IBVERBS.isLoaded()) {
            return RdmaAvailability.unavailable(NativeLibrary.IBVERBS.loadFailure(), cm);
        }
        try (Arena arena = Arena.ofConfined()) {
            MethodHandle getList = NativeLibrary.IBVERBS.downcallCapturingErrno(
                    "ibv_get_device_list", FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS));
            MethodHandle freeList = NativeLibrary.IBVERBS.downcall(
                    "ibv_free_device_list", FunctionDescriptor.ofVoid(ValueLayout.ADDRESS));
            MemorySegment capture = NativeLibrary.allocateErrnoCapture(arena);
            MemorySegment count = arena.allocate(ValueLayout.JAVA_INT);
            MemorySegment list = (MemorySegment) getList.invokeExact(capture, count);
            if (list.equals(MemorySegment.NULL)) {
                int errno = NativeLibrary.errno(capture);
                return RdmaAvailability.unavailable(
                        "no RDMA devices (ibv_get_device_list returned NULL, errno=" + Errno.name(errno) + ")", cm);
            }
            try {
                int n = count.get(ValueLayout.JAVA_INT, 0);
                List<String> names = new ArrayList<>(n);
                MemorySegment entries = list.reinterpret(ValueLayout.ADDRESS.byteSize() * n);
                for (int i = 0; i < n; i++) {
                    MemorySegment device =
                            entries.getAtIndex(ValueLayout.ADDRESS, i).reinterpret(IbvDevice.LAYOUT.byteSize());
                    names.add(device.getString(IbvDevice.NAME));
                }
                if (names.isEmpty()) {
                    return RdmaAvailability.unavailable(
                            "no RDMA devices (ibv_get_device_list returned an empty list)", cm);
                }
                return new RdmaAvailability(true, names.size() + " RDMA device(s): " + names, names, cm);
            } finally {
                freeList.invokeExact(list);
            }
        } catch (RdmaUnavailableException e) {
            return RdmaAvailability.unavailable(e.getMessage(), cm);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("ibv_get_device_list downcall failed", t);
        }
    }

    /**
     * Throws {@link RdmaUnavailableException} with the availability reason unless RDMA is usable.
     *
     * @return the availability, usable
     */
    public static RdmaAvailability requireAvailable() {
        RdmaAvailability availability = availability();
        if (!availability.usable()) {
            throw new RdmaUnavailableException(availability.reason());
        }
        return availability;
    }
}
