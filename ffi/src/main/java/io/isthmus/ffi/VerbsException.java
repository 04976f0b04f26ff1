package io.isthmus.ffi;

/**
 * A failed libibverbs or librdmacm call: carries the verb, the errno (or the error code the verb
 * returned) with its symbolic name, and the call's context as {@code key=value} pairs.
 *
 * <p>Message shape: {@code ibv_create_qp failed: ENOMEM (Cannot allocate memory), errno=12,
 * device=rxe0, max_send_wr=100000}.
 */
public class VerbsException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String verb;
    private final int errno;

    /**
     * @param verb the C function that failed, e.g. {@code ibv_reg_mr}
     * @param errno the errno captured after the call, or the code the verb returned
     * @param context {@code key=value} pairs separated by {@code ", "}; may be empty
     */
    public VerbsException(String verb, int errno, String context) {
        super(format(verb, errno, context));
        this.verb = verb;
        this.errno = errno;
    }

    private static String format(String verb, int errno, String context) {
        StringBuilder sb = new StringBuilder(96)
                .append(verb)
                .append(" failed: ")
                .append(Errno.name(errno))
                .append(" (")
                .append(Errno.message(errno))
                .append("), errno=")
                .append(errno);
        if (context != null && !context.isEmpty()) {
            sb.append(", ").append(context);
        }
        return sb.toString();
    }

    /** The C function that failed. */
    public String verb() {
        return verb;
    }

    /** The errno value (or the error code the verb returned directly). */
    public int errno() {
        return errno;
    }

    /** The symbolic errno name, e.g. {@code EINVAL}. */
    public String errnoName() {
        return Errno.name(errno);
    }

    /**
     * Throws naming the verb when a call that returns non-zero and sets errno failed (most control verbs and
     * every rdma_cm call); the errno comes from the call's captured state, the return code when errno is 0.
     */
    public static void checkErrno(
            final int rc, final java.lang.foreign.MemorySegment capture, final String verb, final String context) {
        if (rc != 0) {
            final int errno = NativeLibrary.errno(capture);
            throw new VerbsException(verb, errno != 0 ? errno : Math.abs(rc), context);
        }
    }
}
