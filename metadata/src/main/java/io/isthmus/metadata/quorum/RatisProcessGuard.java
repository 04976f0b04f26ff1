package io.isthmus.metadata.quorum;

import org.apache.ratis.util.ExitUtils;

/**
 * Keeps Apache Ratis from ending the process it runs in.
 *
 * <p>Ratis 3.2 ends the JVM with {@code System.exit} from {@code ExitUtils.terminate}: its gRPC server does so when
 * it cannot bind its port. Worse, the first use of {@code ExitUtils} replaces the JVM's default uncaught-exception
 * handler with one that terminates the process when any thread of any library dies of an exception. A broker (or a
 * test JVM hosting several) must report such failures, never vanish. So before the first Ratis object is built:
 *
 * <ul>
 *   <li>Ratis's exits become {@code ExitUtils.ExitException}s thrown to its caller: a voter that cannot listen fails
 *       its {@code start} with the reason;
 *   <li>Ratis's handler is switched off and the JVM's previous default handler is put back (by default there is
 *       none, and the JVM prints the dying thread's stack trace to standard error); if something used {@code
 *       ExitUtils} before the guard, the handler it had replaced is lost, and none is set.
 * </ul>
 *
 * The policy is process-wide, as Ratis's is; installing it twice is harmless.
 */
final class RatisProcessGuard {
    private static boolean installed;

    private RatisProcessGuard() {}

    static synchronized void install() {
        if (installed) {
            return;
        }
        Thread.UncaughtExceptionHandler before = Thread.getDefaultUncaughtExceptionHandler();
        // Any ExitUtils call initialises its state, which is when Ratis installs its handler.
        ExitUtils.setTerminateOnUncaughtException(false);
        ExitUtils.disableSystemExit();
        Thread.setDefaultUncaughtExceptionHandler(isRatis(before) ? null : before);
        installed = true;
    }

    /** Whether {@code handler} is one Ratis installed (something used ExitUtils before this guard). */
    private static boolean isRatis(Thread.UncaughtExceptionHandler handler) {
        return handler != null && handler.getClass().getName().startsWith("org.apache.ratis.");
    }
}
