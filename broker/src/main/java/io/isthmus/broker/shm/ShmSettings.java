package io.isthmus.broker.shm;

import io.isthmus.broker.config.BrokerConfig;
import java.nio.file.Path;

/**
 * The {@code shm.*} settings of the broker.
 *
 * @param enabled whether clients on this host may read the log over shared memory
 * @param directory where the token and the slot file live ({@code shm.dir}, by default {@code .isthmus-shm} in the
 *     first log directory)
 * @param maxConnections shared-memory sessions at once (each has a range of {@code slotsPerConnection} slots)
 * @param slotsPerConnection partitions one session can read at once
 * @param produceSlots staging slots a producer may have per partition (batches in flight there)
 */
public record ShmSettings(
        boolean enabled, Path directory, int maxConnections, int slotsPerConnection, int produceSlots) {
    /** The directory under the first log directory when {@code shm.dir} is not set. */
    public static final String DEFAULT_DIRECTORY = ".isthmus-shm";

    public static ShmSettings from(final BrokerConfig config) {
        final String dir = config.getString(BrokerConfig.SHM_DIR);
        return new ShmSettings(
                config.getBoolean(BrokerConfig.SHM_ENABLED),
                dir == null || dir.isBlank() ? config.logDirs().getFirst().resolve(DEFAULT_DIRECTORY) : Path.of(dir),
                config.getInt(BrokerConfig.SHM_MAX_CONNECTIONS),
                config.getInt(BrokerConfig.SHM_SLOTS_PER_CONNECTION),
                config.getInt(BrokerConfig.SHM_PRODUCE_SLOTS));
    }
}
