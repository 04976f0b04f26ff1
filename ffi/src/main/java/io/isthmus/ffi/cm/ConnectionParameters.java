package io.isthmus.ffi.cm;

import io.isthmus.ffi.layout.RdmaConnParam;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct rdma_conn_param} for {@link CmId#connect} and {@link CmId#accept}.
 *
 * @param privateData up to 56 bytes (RC over the TCP port space) delivered to the peer's event
 * @param responderResources RDMA READs/atomics the peer may have outstanding against us
 * @param initiatorDepth RDMA READs/atomics we may have outstanding against the peer
 * @param retryCount transport retries (ignored on accept)
 * @param rnrRetryCount RNR retries (7 = infinite)
 */
public record ConnectionParameters(
        byte[] privateData, int responderResources, int initiatorDepth, int retryCount, int rnrRetryCount) {
    public ConnectionParameters {
        privateData = privateData == null ? new byte[0] : privateData.clone();
        if (privateData.length > 255) {
            throw new IllegalArgumentException("private data too long: length=" + privateData.length);
        }
    }

    /** Private data with the usual RC defaults: 1 outstanding READ/atomic each way, 7 retries. */
    public static ConnectionParameters withPrivateData(byte[] privateData) {
        return new ConnectionParameters(privateData, 1, 1, 7, 7);
    }

    @Override
    public byte[] privateData() {
        return privateData.clone();
    }

    MemorySegment encode(Arena arena) {
        MemorySegment param = arena.allocate(RdmaConnParam.LAYOUT);
        if (privateData.length > 0) {
            MemorySegment data = arena.allocate(privateData.length);
            MemorySegment.copy(privateData, 0, data, ValueLayout.JAVA_BYTE, 0, privateData.length);
            param.set(ValueLayout.ADDRESS, RdmaConnParam.PRIVATE_DATA, data);
        }
        param.set(ValueLayout.JAVA_BYTE, RdmaConnParam.PRIVATE_DATA_LEN, (byte) privateData.length);
        param.set(ValueLayout.JAVA_BYTE, RdmaConnParam.RESPONDER_RESOURCES, (byte) responderResources);
        param.set(ValueLayout.JAVA_BYTE, RdmaConnParam.INITIATOR_DEPTH, (byte) initiatorDepth);
        param.set(ValueLayout.JAVA_BYTE, RdmaConnParam.RETRY_COUNT, (byte) retryCount);
        param.set(ValueLayout.JAVA_BYTE, RdmaConnParam.RNR_RETRY_COUNT, (byte) rnrRetryCount);
        return param;
    }

    @Override
    public String toString() {
        return "private_data_len=" + privateData.length + ", responder_resources=" + responderResources
                + ", initiator_depth=" + initiatorDepth + ", retry_count=" + retryCount + ", rnr_retry_count="
                + rnrRetryCount;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof ConnectionParameters p
                && java.util.Arrays.equals(privateData, p.privateData)
                && responderResources == p.responderResources
                && initiatorDepth == p.initiatorDepth
                && retryCount == p.retryCount
                && rnrRetryCount == p.rnrRetryCount;
    }

    @Override
    public int hashCode() {
        return java.util.Arrays.hashCode(privateData) * 31 + responderResources;
    }
}
