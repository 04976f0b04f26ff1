package io.isthmus.ffi.cm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.ffi.layout.RdmaConnParam;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

class ConnectionParametersTest {
    @Test
    void shouldEncodePrivateDataAndDepths() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment param =
                    ConnectionParameters.withPrivateData(new byte[] {1, 2, 3}).encode(arena);

            assertThat(param.get(JAVA_BYTE, RdmaConnParam.PRIVATE_DATA_LEN)).isEqualTo((byte) 3);
            assertThat(param.get(ADDRESS, RdmaConnParam.PRIVATE_DATA)
                            .reinterpret(3)
                            .toArray(JAVA_BYTE))
                    .containsExactly(1, 2, 3);
            assertThat(param.get(JAVA_BYTE, RdmaConnParam.RESPONDER_RESOURCES)).isEqualTo((byte) 1);
            assertThat(param.get(JAVA_BYTE, RdmaConnParam.INITIATOR_DEPTH)).isEqualTo((byte) 1);
            assertThat(param.get(JAVA_BYTE, RdmaConnParam.RNR_RETRY_COUNT)).isEqualTo((byte) 7);
        }
    }

    @Test
    void shouldCopyThePrivateData() {
        byte[] data = {9};
        ConnectionParameters parameters = ConnectionParameters.withPrivateData(data);
        data[0] = 0;

        assertThat(parameters.privateData()).containsExactly(9);
    }
}
