package io.isthmus.fuzz;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * One fuzzing connection: sends windows of generated frames followed by a {@link FrameGenerator#sync() sync} frame,
 * and reads answers until the sync frame's. An answered sync proves the broker read the whole window (it reads a
 * connection's frames in order), so those frames are counted as delivered. A window whose connection the broker closed
 * (bad input closes it, as Kafka does) or that got no answer within the wait is counted as sent only, and the worker
 * connects again.
 */
final class FuzzConnection implements Runnable {
    private static final int MAX_ANSWER_BYTES = 64 << 20;

    private final InetSocketAddress broker;
    private final FrameGenerator frames;
    private final int window;
    private final int answerWaitMs;
    private final BooleanSupplier done;
    private final Counters counters;

    /** Totals shared by every connection of a run. */
    record Counters(
            AtomicLong framesSent,
            AtomicLong framesDelivered,
            AtomicLong framesMutated,
            AtomicLong connections,
            AtomicLong closedByBroker,
            AtomicLong unanswered) {
        Counters() {
            this(
                    new AtomicLong(),
                    new AtomicLong(),
                    new AtomicLong(),
                    new AtomicLong(),
                    new AtomicLong(),
                    new AtomicLong());
        }
    }

    FuzzConnection(
            final InetSocketAddress broker,
            final FrameGenerator frames,
            final int window,
            final int answerWaitMs,
            final BooleanSupplier done,
            final Counters counters) {
        this.broker = broker;
        this.frames = frames;
        this.window = window;
        this.answerWaitMs = answerWaitMs;
        this.done = done;
        this.counters = counters;
    }

    @Override
    public void run() {
        final FrameBuffer batch = new FrameBuffer(64 * 1024);
        while (!done.getAsBoolean()) {
            try (Socket socket = new Socket()) {
                socket.setTcpNoDelay(true);
                socket.connect(broker, 10_000);
                socket.setSoTimeout(answerWaitMs);
                counters.connections().incrementAndGet();
                final OutputStream out = socket.getOutputStream();
                final DataInputStream in = new DataInputStream(socket.getInputStream());
                while (!done.getAsBoolean()) {
                    batch.clear();
                    int mutated = 0;
                    for (int i = 0; i < window; i++) {
                        final FrameGenerator.Frame frame = frames.next();
                        batch.putBytes(frame.bytes());
                        if (frame.mutated()) {
                            mutated++;
                        }
                    }
                    final FrameGenerator.Frame sync = frames.sync();
                    batch.putBytes(sync.bytes());
                    counters.framesSent().addAndGet(window + 1);
                    counters.framesMutated().addAndGet(mutated);
                    out.write(batch.array(), 0, batch.length());
                    if (!awaitAnswer(in, sync.correlationId())) {
                        counters.unanswered().incrementAndGet();
                        break; // a half-read frame or a long poll holds the line: start afresh
                    }
                    counters.framesDelivered().addAndGet(window + 1);
                }
            } catch (final SocketTimeoutException e) {
                counters.unanswered().incrementAndGet();
            } catch (final IOException closed) {
                counters.closedByBroker().incrementAndGet();
            }
        }
    }

    /**
     * Reads answers until the one to {@code correlationId}; false if none came within the wait.
     *
     * @throws IOException if the broker closed the connection
     */
    private boolean awaitAnswer(final DataInputStream in, final int correlationId) throws IOException {
        final long deadline = System.nanoTime() + answerWaitMs * 1_000_000L;
        byte[] answer = new byte[256];
        while (System.nanoTime() < deadline) {
            final int size;
            try {
                size = in.readInt();
            } catch (final SocketTimeoutException e) {
                return false;
            }
            if (size < 4 || size > MAX_ANSWER_BYTES) {
                throw new IOException("the broker sent an answer of " + size + " bytes");
            }
            if (answer.length < size) {
                answer = new byte[size];
            }
            in.readFully(answer, 0, size);
            final int answered =
                    (answer[0] & 0xFF) << 24 | (answer[1] & 0xFF) << 16 | (answer[2] & 0xFF) << 8 | (answer[3] & 0xFF);
            if (answered == correlationId) {
                return true;
            }
        }
        return false;
    }
}
