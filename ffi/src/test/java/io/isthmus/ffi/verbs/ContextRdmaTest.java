package io.isthmus.ffi.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.isthmus.ffi.Rdma;
import io.isthmus.ffi.RdmaAvailability;
import io.isthmus.ffi.VerbsException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The control path on a real device (rxe0 in the Soft-RoCE guest). */
@Tag("rdma")
class ContextRdmaTest {
    private DeviceList devices;
    private Context context;

    @BeforeEach
    void open() {
        devices = DeviceList.open();
        context = devices.byName(RdmaTestBed.deviceName()).open();
    }

    @AfterEach
    void close() {
        context.close();
        devices.close();
    }

    @Test
    void shouldReportTheDeviceAsAvailable() {
        RdmaAvailability availability = Rdma.availability();

        assertThat(availability.usable()).isTrue();
        assertThat(availability.devices()).contains(RdmaTestBed.deviceName());
        assertThat(availability.connectionManager()).isTrue();
        assertThat(devices.devices()).extracting(Device::name).contains(RdmaTestBed.deviceName());
    }

    @Test
    void shouldQuerySaneDeviceLimits() {
        DeviceAttributes attributes = context.queryDevice();

        assertThat(attributes.maxQp()).isPositive();
        assertThat(attributes.maxQpWr()).isGreaterThanOrEqualTo(128);
        assertThat(attributes.maxSge()).isGreaterThanOrEqualTo(4);
        assertThat(attributes.maxCqe()).isGreaterThanOrEqualTo(256);
        assertThat(attributes.maxMrSize())
                .as("max_mr_size (unsigned; rxe reports 2^64-1)")
                .isNotZero();
        assertThat(attributes.maxQpRdAtom()).isPositive();
        assertThat(attributes.atomicCap()).isNotEqualTo(AtomicCapability.NONE);
        assertThat(attributes.physPortCnt()).isEqualTo(1);
    }

    @Test
    void shouldQueryAnActiveEthernetPort() {
        PortAttributes port = context.queryPort(RdmaTestBed.PORT);

        assertThat(port.state()).isEqualTo(PortState.ACTIVE);
        assertThat(port.linkLayer()).isEqualTo(LinkLayer.ETHERNET);
        assertThat(port.activeMtu().bytes()).isBetween(256, 4096);
        assertThat(port.gidTableLength()).isGreaterThan(RdmaTestBed.gidIndex());
        assertThat(port.maxMessageSize()).isPositive();
    }

    @Test
    void shouldQueryTheIpv4MappedGid() {
        Gid gid = context.queryGid(RdmaTestBed.PORT, RdmaTestBed.gidIndex());
        byte[] raw = gid.raw();

        assertThat(gid.isZero()).isFalse();
        if (System.getenv("ISTHMUS_RDMA_IP") != null) {
            // ::ffff:a.b.c.d
            assertThat(raw[10]).isEqualTo((byte) 0xff);
            assertThat(raw[11]).isEqualTo((byte) 0xff);
            String ip = (raw[12] & 0xff) + "." + (raw[13] & 0xff) + "." + (raw[14] & 0xff) + "." + (raw[15] & 0xff);
            assertThat(ip).isEqualTo(System.getenv("ISTHMUS_RDMA_IP"));
        }
        assertThatThrownBy(() -> context.queryGid(RdmaTestBed.PORT, 100_000)).isInstanceOf(VerbsException.class);
    }

    @Test
    void shouldThrowOnUseAfterClose() {
        ProtectionDomain pd = context.allocateProtectionDomain();
        pd.close();

        assertThatThrownBy(() -> pd.registerMemory(Arena.global().allocate(64), AccessFlags.LOCAL_WRITE))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("ibv_pd is closed: device=" + RdmaTestBed.deviceName());
    }

    @Test
    void shouldRefuseToCloseAProtectionDomainWithALiveMemoryRegion() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buffer = arena.allocate(4096);
            ProtectionDomain pd = context.allocateProtectionDomain();
            MemoryRegion mr = pd.registerMemory(buffer, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ);

            assertThatThrownBy(pd::close)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("cannot close ibv_pd(")
                    .hasMessageContaining("ibv_mr(");
            assertThatThrownBy(context::close).isInstanceOf(IllegalStateException.class);
            assertThat(mr.lkey()).isNotZero();
            assertThat(mr.length()).isEqualTo(4096);

            mr.close();
            pd.close();
            assertThat(pd.isClosed()).isTrue();
        }
    }

    @Test
    void shouldRejectRemoteWriteWithoutLocalWriteWithTheErrnoName() {
        try (Arena arena = Arena.ofConfined();
                ProtectionDomain pd = context.allocateProtectionDomain()) {
            MemorySegment buffer = arena.allocate(4096);

            assertThatThrownBy(() -> pd.registerMemory(buffer, AccessFlags.REMOTE_WRITE))
                    .isInstanceOf(VerbsException.class)
                    .hasMessageStartingWith("ibv_reg_mr failed: EINVAL")
                    .hasMessageContaining("access=REMOTE_WRITE");
        }
    }

    @Test
    void shouldNotReportAnAsyncEventWhenNothingHappened() {
        assertThat(context.awaitAsyncEvent(0)).isNull();
        assertThat(context.completionVectors()).isPositive();
    }
}
