package io.isthmus.fuzz;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * Connections that cost a broker without helping anyone, held open for as long as the load runs, one virtual thread
 * each:
 *
 * <ul>
 *   <li><b>idle</b>: connect, ask ApiVersions once, then say nothing;
 *   <li><b>slow readers</b>: pipeline requests (fetches of a topic with data, ApiVersions) as fast as the broker takes
 *       them and never read an answer;
 *   <li><b>partial frames</b>: send half a request frame and wait; when the broker gives up on the frame and closes,
 *       connect and do it again.
 * </ul>
 */
final class HostileLoad implements AutoCloseable {
    private static final short FETCH_VERSION = 12;

    private final InetSocketAddress broker;
    private final String fetchedTopic;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicLong slowReaderRequests = new AtomicLong();
    private final AtomicLong partialFramesClosed = new AtomicLong();
    private final AtomicLong idleClosed = new AtomicLong();
    private volatile boolean closing;

    HostileLoad(final InetSocketAddress broker, final String fetchedTopic) {
        this.broker = broker;
        this.fetchedTopic = fetchedTopic;
    }

    /**
     * Opens {@code connections} connections, of which {@code slowReaders} read nothing and {@code partialFrames} send
     * half frames, and waits until every one is established.
     */
    void start(final int connections, final int slowReaders, final int partialFrames) throws InterruptedException {
        if (slowReaders + partialFrames > connections) {
            throw new IllegalArgumentException("slowReaders + partialFrames > connections: " + slowReaders + " + "
                    + partialFrames + " > " + connections);
        }
        final CountDownLatch established = new CountDownLatch(connections);
        for (int i = 0; i < connections; i++) {
            final boolean fetches = i % 2 == 0; // half the slow readers fetch (file answers), half ask ApiVersions
            final Runnable body = i < slowReaders
                    ? () -> slowReader(established, fetches)
                    : i < slowReaders + partialFrames ? () -> partialFrames(established) : () -> idle(established);
            threads.add(Thread.ofVirtual().name("hostile-" + i).start(body));
        }
        if (!established.await(120, TimeUnit.SECONDS)) {
            throw new IllegalStateException(
                    "hostile connections not established in 120 s: " + established.getCount() + " missing");
        }
    }

    private Socket connect(final int receiveBuffer) throws IOException {
        final Socket socket = new Socket();
        sockets.add(socket);
        if (receiveBuffer > 0) {
            socket.setReceiveBufferSize(receiveBuffer);
        }
        socket.connect(broker, 30_000);
        return socket;
    }

    private void idle(final CountDownLatch established) {
        try (Socket socket = connect(0)) {
            final FrameGenerator.Frame hello = new FrameGenerator(0, 0, 0).sync();
            socket.getOutputStream().write(hello.bytes());
            final DataInputStream in = new DataInputStream(socket.getInputStream());
            in.readFully(new byte[in.readInt()]);
            established.countDown();
            if (in.read() == -1 && !closing) {
                idleClosed.incrementAndGet();
            }
        } catch (final IOException e) {
            if (!closing) {
                idleClosed.incrementAndGet();
            }
        }
    }

    private void slowReader(final CountDownLatch established, final boolean fetches) {
        try (Socket socket = connect(4096)) {
            established.countDown();
            final OutputStream out = socket.getOutputStream();
            final byte[] request =
                    fetches ? fetchFrame() : new FrameGenerator(0, 0, 0).sync().bytes();
            while (!closing) {
                out.write(request); // blocks once the broker stops reading this connection: that is the point
                slowReaderRequests.incrementAndGet();
            }
        } catch (final IOException e) {
            // closed: by us at the end, or by the broker
        }
    }

    private void partialFrames(final CountDownLatch established) {
        boolean first = true;
        while (!closing) {
            try (Socket socket = connect(0)) {
                final byte[] frame = new FrameGenerator(0, 0, 0).sync().bytes();
                socket.getOutputStream().write(frame, 0, frame.length / 2);
                if (first) {
                    established.countDown();
                    first = false;
                }
                final InputStream in = socket.getInputStream();
                if (in.read() == -1 && !closing) {
                    partialFramesClosed.incrementAndGet();
                }
            } catch (final IOException e) {
                if (!closing) {
                    partialFramesClosed.incrementAndGet();
                }
            }
        }
    }

    /** A fetch of partition 0 of the topic from its start, up to 1 MiB: an answer the broker sends from its files. */
    private byte[] fetchFrame() {
        final LinkedHashMap<TopicPartition, FetchRequest.PartitionData> partitions = new LinkedHashMap<>();
        partitions.put(
                new TopicPartition(fetchedTopic, 0),
                new FetchRequest.PartitionData(Uuid.ZERO_UUID, 0, 0, 1 << 20, java.util.Optional.empty()));
        final FetchRequest request = FetchRequest.Builder.forConsumer(FETCH_VERSION, 0, 1, partitions)
                .setMaxBytes(1 << 20)
                .build(FETCH_VERSION);
        final ByteBuffer body =
                request.serializeWithHeader(new RequestHeader(ApiKeys.FETCH, FETCH_VERSION, "slow-reader", 1));
        final ByteBuffer frame = ByteBuffer.allocate(4 + body.remaining());
        frame.putInt(body.remaining()).put(body);
        return frame.array();
    }

    long slowReaderRequests() {
        return slowReaderRequests.get();
    }

    /** Partial-frame connections the broker closed (its request read timeout). */
    long partialFramesClosed() {
        return partialFramesClosed.get();
    }

    /** Idle connections the broker closed: none while the load is shorter than connections.max.idle.ms. */
    long idleClosed() {
        return idleClosed.get();
    }

    @Override
    public void close() throws InterruptedException {
        closing = true;
        for (final Socket socket : sockets) {
            try {
                socket.close();
            } catch (final IOException e) {
                // closing anyway
            }
        }
        for (final Thread thread : threads) {
            thread.join(10_000);
        }
    }
}
