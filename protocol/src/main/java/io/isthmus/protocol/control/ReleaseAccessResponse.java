package io.isthmus.protocol.control;

/**
 * RELEASE_ACCESS response body.
 *
 * <pre>
 *   0           2
 *   +-----------+
 *   | errorCode |
 *   | int16     |
 *   +-----------+
 * </pre>
 */
public final class ReleaseAccessResponse extends ControlFlyweight<ReleaseAccessResponse> {
    public static final int ERROR_CODE_OFFSET = 0;
    public static final int LENGTH = 2;

    public ReleaseAccessResponse() {
        super("ReleaseAccess response", LENGTH, null);
    }

    public short errorCode() {
        return getInt16(ERROR_CODE_OFFSET);
    }

    public ReleaseAccessResponse errorCode(final short errorCode) {
        putInt16(ERROR_CODE_OFFSET, errorCode);
        return this;
    }
}
