package io.isthmus.protocol.control;

/**
 * The files of a broker's shared-memory directory ({@code shm.dir}, by default {@code .isthmus-shm} in its first log
 * directory), the contract between a broker and the clients on its host:
 *
 * <ul>
 *   <li>{@link #TOKEN_FILE}: {@link #TOKEN_LENGTH} random bytes, new at every broker start, readable by the broker's
 *       OS user only (mode 0600). A client proves with them that it may read what the broker keeps (SHM_ATTACH).
 *   <li>{@link #SLOT_FILE}: the metadata slots of every shared-memory session ({@link ShmSlotFileDescriptor}), new at
 *       every broker start; the file of the previous start is marked closed before it is replaced, so a client still
 *       mapping it learns that the broker restarted.
 *   <li>{@link #abortedFile(long)}: one partition's aborted-transaction array ({@link AbortedTransactionsDescriptor}),
 *       for {@code read_committed} readers; removed when no reader of the partition is left, and every one of them at
 *       the next broker start.
 *   <li>{@link #stagingFile(long)}: one producer's staging slots for one partition (laid out as {@link ProduceStagingDescriptor}'s; the doorbell names the slot),
 *       written by the producer, read by the broker; removed when the producer releases it or its connection closes,
 *       and every one of them at the next broker start.
 * </ul>
 */
public final class ShmDirectoryLayout {
    public static final String TOKEN_FILE = "token";
    public static final String SLOT_FILE = "slots";
    public static final int TOKEN_LENGTH = 16;

    /** The prefix of the aborted-transaction array files. */
    public static final String ABORTED_FILE_PREFIX = "aborted-";

    /** The prefix of the producers' staging files. */
    public static final String STAGING_FILE_PREFIX = "staging-";

    private ShmDirectoryLayout() {}

    /** The file name of staging file {@code stagingId}. */
    public static String stagingFile(final long stagingId) {
        return STAGING_FILE_PREFIX + stagingId;
    }

    /** The file name of aborted-transaction array {@code arrayId}. */
    public static String abortedFile(final long arrayId) {
        return ABORTED_FILE_PREFIX + arrayId;
    }
}
