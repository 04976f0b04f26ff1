package io.isthmus.ffi;

/**
 * Linux errno values (x86_64 / generic) that rdma-core verbs and the RDMA connection manager
 * return, with their symbolic names and the message {@code strerror(3)} gives for them.
 */
public enum Errno {
    EPERM(1, "Operation not permitted"),
    ENOENT(2, "No such file or directory"),
    ESRCH(3, "No such process"),
    EINTR(4, "Interrupted system call"),
    EIO(5, "Input/output error"),
    ENXIO(6, "No such device or address"),
    E2BIG(7, "Argument list too long"),
    EBADF(9, "Bad file descriptor"),
    EAGAIN(11, "Resource temporarily unavailable"),
    ENOMEM(12, "Cannot allocate memory"),
    EACCES(13, "Permission denied"),
    EFAULT(14, "Bad address"),
    EBUSY(16, "Device or resource busy"),
    EEXIST(17, "File exists"),
    ENODEV(19, "No such device"),
    EINVAL(22, "Invalid argument"),
    ENFILE(23, "Too many open files in system"),
    EMFILE(24, "Too many open files"),
    ENOSPC(28, "No space left on device"),
    ERANGE(34, "Numerical result out of range"),
    ENOSYS(38, "Function not implemented"),
    ENODATA(61, "No data available"),
    ETIME(62, "Timer expired"),
    EPROTO(71, "Protocol error"),
    EOVERFLOW(75, "Value too large for defined data type"),
    EPROTONOSUPPORT(93, "Protocol not supported"),
    EOPNOTSUPP(95, "Operation not supported"),
    EAFNOSUPPORT(97, "Address family not supported by protocol"),
    EADDRINUSE(98, "Address already in use"),
    EADDRNOTAVAIL(99, "Cannot assign requested address"),
    ENETDOWN(100, "Network is down"),
    ENETUNREACH(101, "Network is unreachable"),
    ECONNABORTED(103, "Software caused connection abort"),
    ECONNRESET(104, "Connection reset by peer"),
    ENOBUFS(105, "No buffer space available"),
    EISCONN(106, "Transport endpoint is already connected"),
    ENOTCONN(107, "Transport endpoint is not connected"),
    ETIMEDOUT(110, "Connection timed out"),
    ECONNREFUSED(111, "Connection refused"),
    EHOSTDOWN(112, "Host is down"),
    EHOSTUNREACH(113, "No route to host"),
    EALREADY(114, "Operation already in progress"),
    EINPROGRESS(115, "Operation now in progress");

    private static final Errno[] BY_VALUE = new Errno[128];

    static {
        for (Errno errno : values()) {
            BY_VALUE[errno.value] = errno;
        }
    }

    private final int value;
    private final String message;

    Errno(int value, String message) {
        this.value = value;
        this.message = message;
    }

    /** The numeric errno value. */
    public int value() {
        return value;
    }

    /** The {@code strerror(3)} text. */
    public String message() {
        return message;
    }

    /** The constant for {@code value}, or {@code null} when the table does not know it. */
    public static Errno of(int value) {
        return value > 0 && value < BY_VALUE.length ? BY_VALUE[value] : null;
    }

    /** The symbolic name ({@code "ENOMEM"}), or {@code "errno-N"} for values outside the table. */
    public static String name(int value) {
        Errno errno = of(value);
        return errno == null ? "errno-" + value : errno.name();
    }

    /** The {@code strerror(3)} text, or {@code "Unknown error N"} for values outside the table. */
    public static String message(int value) {
        Errno errno = of(value);
        return errno == null ? "Unknown error " + value : errno.message;
    }
}
