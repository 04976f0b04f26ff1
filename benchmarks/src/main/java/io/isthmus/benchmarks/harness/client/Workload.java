package io.isthmus.benchmarks.harness.client;

import java.util.Map;

/** One client-side measurement; returns its figures, which the runner prints as one JSON line. */
public interface Workload {
    Map<String, Object> run(WorkloadContext context) throws Exception;
}
