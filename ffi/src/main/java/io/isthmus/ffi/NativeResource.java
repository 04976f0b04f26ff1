package io.isthmus.ffi;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The life cycle shared by every native object of the binding: closed once, in reverse order of
 * creation. A resource knows the resources it depends on (a memory region its protection domain,
 * a queue pair its PD and CQs) and refuses to close while resources depending on it are open, so
 * that closing out of order throws a clear exception instead of handing freed memory to the
 * provider. Every use after close throws {@link IllegalStateException}.
 */
public abstract class NativeResource implements AutoCloseable {
    private final String kind;
    private final List<NativeResource> dependencies = new ArrayList<>(2);
    private final Set<NativeResource> dependents = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    /**
     * @param kind the C type, e.g. {@code ibv_pd}, used in messages
     * @param dependencies open resources this one depends on (nulls are ignored)
     */
    protected NativeResource(String kind, NativeResource... dependencies) {
        this.kind = kind;
        for (NativeResource dependency : dependencies) {
            if (dependency != null) {
                dependency.checkOpen();
                dependency.dependents.add(this);
                this.dependencies.add(dependency);
            }
        }
    }

    /** The C type name of the resource, e.g. {@code ibv_qp}. */
    public final String kind() {
        return kind;
    }

    /** Whether {@link #close()} completed. */
    public final boolean isClosed() {
        return closed;
    }

    /** {@code key=value} pairs identifying this resource in messages. */
    protected abstract String details();

    /** Frees the native object; called at most once, after every dependent was closed. */
    protected abstract void release();

    /** Throws if this resource was closed. Cheap enough for the data path (one volatile read). */
    protected final void checkOpen() {
        if (closed) {
            throw new IllegalStateException(kind + " is closed: " + details());
        }
    }

    /** The open resources that depend on this one. */
    public final List<String> openDependents() {
        List<String> names = new ArrayList<>();
        for (NativeResource dependent : dependents) {
            names.add(dependent.toString());
        }
        return names;
    }

    /**
     * Frees the native object.
     *
     * @throws IllegalStateException when resources created from this one are still open
     */
    @Override
    public final synchronized void close() {
        if (closed) {
            return;
        }
        if (!dependents.isEmpty()) {
            throw new IllegalStateException("cannot close " + this + ": " + dependents.size()
                    + " dependent resource(s) still open " + openDependents()
                    + "; close them first, in reverse order of creation");
        }
        release();
        closed = true;
        for (NativeResource dependency : dependencies) {
            dependency.dependents.remove(this);
        }
    }

    @Override
    public String toString() {
        return kind + "(" + details() + ")";
    }
}
