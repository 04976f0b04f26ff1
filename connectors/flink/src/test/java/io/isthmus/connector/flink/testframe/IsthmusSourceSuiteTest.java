package io.isthmus.connector.flink.testframe;

import org.apache.flink.connector.testframe.environment.MiniClusterTestEnvironment;
import org.apache.flink.connector.testframe.external.ExternalContextFactory;
import org.apache.flink.connector.testframe.junit.annotations.TestContext;
import org.apache.flink.connector.testframe.junit.annotations.TestEnv;
import org.apache.flink.connector.testframe.junit.annotations.TestExternalSystem;
import org.apache.flink.connector.testframe.junit.annotations.TestSemantics;
import org.apache.flink.connector.testframe.testsuites.SourceTestSuiteBase;
import org.apache.flink.core.execution.CheckpointingMode;

/**
 * Flink's own source test suite ({@code flink-connector-test-utils} 2.3.0), unchanged, against the isthmus source
 * and broker: single and multiple splits, savepoint restart, scale up and down, metrics, an idle reader and a task
 * manager failure, each with exactly-once and at-least-once checkpointing.
 */
class IsthmusSourceSuiteTest extends SourceTestSuiteBase<String> {
    @TestEnv
    MiniClusterTestEnvironment flink = new MiniClusterTestEnvironment();

    @TestExternalSystem
    IsthmusBrokerResource broker = new IsthmusBrokerResource();

    @TestContext
    ExternalContextFactory<IsthmusSourceExternalContext> contexts =
            testName -> new IsthmusSourceExternalContext(broker.bootstrapServers());

    @TestSemantics
    CheckpointingMode[] semantics = {CheckpointingMode.EXACTLY_ONCE, CheckpointingMode.AT_LEAST_ONCE};
}
