package io.isthmus.connector.flink.testing;

import java.time.Duration;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;

/** The MiniCluster the connector's tests run on, and execution environments on it. */
public final class FlinkTestJobs {
    public static final int SLOTS = 4;

    private FlinkTestJobs() {}

    /** One task manager with {@value #SLOTS} slots, shared by a test class. */
    public static MiniClusterExtension miniCluster() {
        return new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
                .setNumberTaskManagers(1)
                .setNumberSlotsPerTaskManager(SLOTS)
                .build());
    }

    /**
     * An environment whose job restarts from its last checkpoint on failure, up to five times, at once, and
     * checkpoints every {@code checkpointIntervalMs}: for jobs under injected failures.
     */
    public static StreamExecutionEnvironment restarting(final int parallelism, final long checkpointIntervalMs) {
        final Configuration configuration = new Configuration();
        configuration.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        configuration.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 5);
        configuration.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ZERO);
        final StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(configuration);
        env.setParallelism(parallelism);
        env.enableCheckpointing(checkpointIntervalMs);
        return env;
    }

    /** An environment whose job fails at the first error instead of restarting, so a test sees the cause. */
    public static StreamExecutionEnvironment failFast(final int parallelism) {
        final Configuration configuration = new Configuration();
        configuration.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        final StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(configuration);
        env.setParallelism(parallelism);
        return env;
    }
}
