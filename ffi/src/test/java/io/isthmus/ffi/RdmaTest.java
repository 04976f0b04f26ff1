package io.isthmus.ffi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.isthmus.ffi.verbs.DeviceList;
import org.junit.jupiter.api.Test;

class RdmaTest {
    /** The Soft-RoCE guest sets this; everywhere else the host has no RDMA device. */
    private static final boolean HOST_WITHOUT_RDMA = System.getenv("ISTHMUS_RDMA_DEVICE") == null;

    @Test
    void shouldReportUnavailableWithAReasonOnAHostWithoutRdma() {
        assumeTrue(HOST_WITHOUT_RDMA, "runs on hosts without an RDMA device");

        RdmaAvailability availability = Rdma.availability();

        assertThat(availability.usable()).isFalse();
        assertThat(availability.devices()).isEmpty();
        assertThat(availability.reason())
                .satisfiesAnyOf(
                        reason -> assertThat(reason).startsWith("no RDMA devices (ibv_get_device_list returned"),
                        reason -> assertThat(reason).startsWith("libibverbs.so.1 not found"));
    }

    @Test
    void shouldNameTheErrnoWhenTheDeviceListIsNull() {
        assumeTrue(HOST_WITHOUT_RDMA && NativeLibrary.IBVERBS.isLoaded(), "needs libibverbs without devices");

        assertThat(Rdma.availability().reason())
                .matches("no RDMA devices \\(ibv_get_device_list returned (NULL, errno=E[A-Z0-9]+|an empty list)\\)");
    }

    @Test
    void shouldThrowTheAvailabilityReasonWhenRdmaIsRequired() {
        assumeTrue(HOST_WITHOUT_RDMA, "runs on hosts without an RDMA device");
        String reason = Rdma.availability().reason();

        assertThatThrownBy(Rdma::requireAvailable)
                .isInstanceOf(RdmaUnavailableException.class)
                .hasMessage(reason);
        assertThatThrownBy(DeviceList::open)
                .isInstanceOf(RdmaUnavailableException.class)
                .hasMessageStartingWith(reason.substring(0, 10));
    }

    @Test
    void shouldReportAMissingLibraryAsAReasonNotAnException() {
        assertThat(NativeLibrary.IBVERBS.soname()).isEqualTo("libibverbs.so.1");
        assertThat(NativeLibrary.RDMACM.soname()).isEqualTo("librdmacm.so.1");
        if (!NativeLibrary.IBVERBS.isLoaded()) {
            assertThat(NativeLibrary.IBVERBS.loadFailure()).startsWith("libibverbs.so.1 not found");
        } else {
            assertThat(NativeLibrary.IBVERBS.loadFailure()).isNull();
            assertThat(NativeLibrary.IBVERBS.symbol("ibv_get_device_list").address())
                    .isNotZero();
        }
    }
}
