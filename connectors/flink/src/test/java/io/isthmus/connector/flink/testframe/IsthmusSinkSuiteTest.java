package io.isthmus.connector.flink.testframe;

import org.apache.flink.connector.testframe.environment.MiniClusterTestEnvironment;
import org.apache.flink.connector.testframe.external.ExternalContextFactory;
import org.apache.flink.connector.testframe.junit.annotations.TestContext;
import org.apache.flink.connector.testframe.junit.annotations.TestEnv;
import org.apache.flink.connector.testframe.junit.annotations.TestExternalSystem;
import org.apache.flink.connector.testframe.junit.annotations.TestSemantics;
import org.apache.flink.connector.testframe.testsuites.SinkTestSuiteBase;
import org.apache.flink.core.execution.CheckpointingMode;

/**
 * Flink's own sink test suite ({@code flink-connector-test-utils} 2.3.0), unchanged, against the isthmus sink and
 * broker: basic writing, restart from a savepoint, scale up and down, metrics, each with exactly-once checkpointing (the
 * sink's EXACTLY_ONCE guarantee, read back read_committed) and at-least-once.
 */
class IsthmusSinkSuiteTest extends SinkTestSuiteBase<String> {
    @TestEnv
    MiniClusterTestEnvironment flink = new MiniClusterTestEnvironment();

    @TestExternalSystem
    IsthmusBrokerResource broker = new IsthmusBrokerResource();

    @TestContext
    ExternalContextFactory<IsthmusSinkExternalContext> contexts =
            testName -> new IsthmusSinkExternalContext(broker.bootstrapServers());

    @TestSemantics
    CheckpointingMode[] semantics = {CheckpointingMode.EXACTLY_ONCE, CheckpointingMode.AT_LEAST_ONCE};
}
