package io.isthmus.protocol.control;

/**
 * SHM_ATTACH request body: proof that the client can read the broker's shared-memory directory, so it may map the
 * broker's log and metadata slots. The token is the content of {@link ShmDirectoryLayout#TOKEN_FILE} in that directory,
 * a file only the broker's OS user (and those it lets read its log directory) can read; a client that has not read it
 * yet sends zeros and learns the directory from the TOKEN_MISMATCH answer.
 *
 * <pre>
 *   0                                   16
 *   +-----------------------------------+
 *   | token (16 raw bytes)              |
 *   +-----------------------------------+
 * </pre>
 */
public final class ShmAttachRequest extends ControlFlyweight<ShmAttachRequest> {
    public static final int TOKEN_OFFSET = 0;
    public static final int TOKEN_LENGTH = ShmDirectoryLayout.TOKEN_LENGTH;
    public static final int LENGTH = 16;

    public ShmAttachRequest() {
        super("ShmAttach request", LENGTH, null);
    }

    /** A copy of the token. */
    public byte[] token() {
        return getBytes(TOKEN_OFFSET, TOKEN_LENGTH);
    }

    /** @throws IllegalArgumentException unless {@code token} has 16 bytes */
    public ShmAttachRequest token(final byte[] token) {
        putBytes(TOKEN_OFFSET, TOKEN_LENGTH, token, "token");
        return this;
    }
}
