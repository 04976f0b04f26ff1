package io.isthmus.connector.spark;

import org.apache.spark.SparkConf;
import org.apache.spark.SparkEnv;
import org.apache.spark.network.util.JavaUtils;

/**
 * The Spark settings ({@code spark.isthmus.*}) the executor's consumer and producer caches read, from the executor's
 * {@link SparkEnv}; the defaults where there is none (the connector's classes used outside a Spark runtime).
 */
public final class ExecutorSettings {
    private ExecutorSettings() {}

    /** A whole-number setting. */
    public static int integer(final String name, final int defaultValue) {
        final SparkConf conf = conf();
        return conf == null ? defaultValue : conf.getInt(name, defaultValue);
    }

    /** A duration setting as Spark writes them ("5m", "30s"), in milliseconds. */
    public static long durationMs(final String name, final String defaultValue) {
        final SparkConf conf = conf();
        return JavaUtils.timeStringAsMs(conf == null ? defaultValue : conf.get(name, defaultValue));
    }

    private static SparkConf conf() {
        final SparkEnv env = SparkEnv.get();
        return env == null ? null : env.conf();
    }
}
