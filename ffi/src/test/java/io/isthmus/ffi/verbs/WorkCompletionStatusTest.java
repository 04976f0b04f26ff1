package io.isthmus.ffi.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class WorkCompletionStatusTest {
    @Test
    void shouldUseTheValuesOfEnumIbvWcStatus() {
        assertThat(WorkCompletionStatus.of(0)).isEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(WorkCompletionStatus.of(1)).isEqualTo(WorkCompletionStatus.LOC_LEN_ERR);
        assertThat(WorkCompletionStatus.of(5)).isEqualTo(WorkCompletionStatus.WR_FLUSH_ERR);
        assertThat(WorkCompletionStatus.of(10)).isEqualTo(WorkCompletionStatus.REM_ACCESS_ERR);
        assertThat(WorkCompletionStatus.of(12)).isEqualTo(WorkCompletionStatus.RETRY_EXC_ERR);
        assertThat(WorkCompletionStatus.of(13)).isEqualTo(WorkCompletionStatus.RNR_RETRY_EXC_ERR);
        assertThat(WorkCompletionStatus.of(21)).isEqualTo(WorkCompletionStatus.GENERAL_ERR);
        assertThat(WorkCompletionStatus.values()).hasSize(24);
    }

    @Test
    void shouldRejectUnknownValues() {
        assertThatThrownBy(() -> WorkCompletionStatus.of(24))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown WorkCompletionStatus value: value=24");
    }
}
