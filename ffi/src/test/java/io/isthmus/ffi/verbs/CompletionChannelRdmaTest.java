package io.isthmus.ffi.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("rdma")
class CompletionChannelRdmaTest {
    @Test
    void shouldWakeAWaiterAfterRequestNotification() throws Exception {
        try (RdmaTestBed bed = new RdmaTestBed();
                CompletionChannel channel = bed.context.createCompletionChannel()) {
            CompletionQueue cq = bed.context.createCompletionQueue(16, channel, 0);
            QueuePair qp = bed.pd.createQueuePair(new QueuePairOptions().completionQueue(cq));
            try {
                qp.moveToInit(RdmaTestBed.PORT, AccessFlags.LOCAL_WRITE);
                cq.requestNotification(false);
                assertThat(channel.awaitEvent(0)).isNull();
                CompletableFuture<CompletionQueue> waiter =
                        CompletableFuture.supplyAsync(() -> channel.awaitEvent(60_000));

                bed.receives.set(0, 77).sge(0, 0, bed.mrB, 0, 64);
                qp.postReceive(bed.receives, 1);
                qp.moveToError(); // flushes the receive: a completion without a peer

                assertThat(waiter.get(60, TimeUnit.SECONDS)).isSameAs(cq);
                cq.acknowledgeEvents();
                assertThat(cq.poll(bed.completions)).isEqualTo(1);
                assertThat(bed.completions.wrId(0)).isEqualTo(77);
                assertThat(bed.completions.status(0)).isEqualTo(WorkCompletionStatus.WR_FLUSH_ERR);
            } finally {
                qp.close();
                cq.close();
            }
        }
    }
}
