package io.isthmus.benchmarks.harness.client;

import java.time.Duration;
import java.util.Map;

/** One client-side measurement; returns its figures, which the runner prints as one JSON line. */
public interface Workload {
    /**
     * How long a throughput workload warms up before its clock starts, at least. Why by time and not by a share of
     * the records: a run of a few hundred megabytes takes well under a second on this machine, so a tenth of it ended
     * before the client's JIT had compiled its hot paths, and the measured part then timed the compiler as much as
     * the datapath (produce at 100 B measured 153 MB/s that way, 240-300 MB/s after 2 s of warm-up, the same client
     * and broker).
     */
    Duration WARMUP = Duration.ofSeconds(2);

    Map<String, Object> run(WorkloadContext context) throws Exception;
}
