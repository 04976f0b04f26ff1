package io.isthmus.benchmarks.harness;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LogAppendProbeTest {
    /** The probe appends real, valid batches through the log (an invalid one would throw) and reports what it wrote. */
    @Test
    void appendsValidBatchesAndReportsBytesPerSecond() throws Exception {
        final double bytesPerSecond = LogAppendProbe.measure(0.2);

        assertThat(bytesPerSecond)
                .as("bytes appended per second, however slow the machine")
                .isPositive()
                .isFinite();
    }
}
