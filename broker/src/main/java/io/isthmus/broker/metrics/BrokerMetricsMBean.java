package io.isthmus.broker.metrics;

import io.isthmus.broker.network.NetworkMetrics;
import io.isthmus.broker.partition.Partition;
import io.isthmus.broker.partition.PartitionManager;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.AttributeNotFoundException;
import javax.management.DynamicMBean;
import javax.management.JMException;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * The broker's metrics over JMX, as one MBean {@code io.isthmus:type=Broker}: per API the request count,
 * error count and mean latency, bytes in and out, open connections, connections closed for bad input, and
 * each partition's log end offset. Attributes are read live from the counters; nothing is sampled.
 */
public final class BrokerMetricsMBean implements DynamicMBean, AutoCloseable {
    public static final String OBJECT_NAME = "io.isthmus:type=Broker";

    private final NetworkMetrics network;
    private final PartitionManager partitions;
    private final ObjectName name;

    private BrokerMetricsMBean(final NetworkMetrics network, final PartitionManager partitions) throws JMException {
        this.network = network;
        this.partitions = partitions;
        this.name = new ObjectName(OBJECT_NAME);
    }

    /** Registers the MBean with the platform server, replacing one left by an earlier broker in this JVM. */
    public static BrokerMetricsMBean register(final NetworkMetrics network, final PartitionManager partitions) {
        try {
            final BrokerMetricsMBean bean = new BrokerMetricsMBean(network, partitions);
            final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            if (server.isRegistered(bean.name)) {
                server.unregisterMBean(bean.name);
            }
            server.registerMBean(bean, bean.name);
            return bean;
        } catch (final JMException e) {
            throw new IllegalStateException("cannot register " + OBJECT_NAME, e);
        }
    }

    private Map<String, LongSupplier> attributes() {
        final Map<String, LongSupplier> attributes = new LinkedHashMap<>();
        attributes.put("BytesIn", network::bytesIn);
        attributes.put("BytesOut", network::bytesOut);
        attributes.put("Connections", network::connections);
        attributes.put("ConnectionsClosedForBadInput", network::connectionsClosedForBadInput);
        for (final ApiKeys key : ApiKeys.values()) {
            final String api = key.name();
            attributes.put("Requests." + api, () -> network.requests(key));
            attributes.put("Errors." + api, () -> network.errors(key));
            attributes.put("RequestLatencyAvgMicros." + api, () -> {
                final long count = network.requests(key);
                return count == 0 ? 0 : network.requestNanos(key) / count / 1000;
            });
        }
        for (final Partition partition : partitions.partitions()) {
            attributes.put("LogEndOffset." + partition.topicPartition(), partition::logEndOffset);
        }
        return attributes;
    }

    @Override
    public Object getAttribute(final String attribute) throws AttributeNotFoundException {
        final LongSupplier value = attributes().get(attribute);
        if (value == null) {
            throw new AttributeNotFoundException("no attribute " + attribute + " on " + OBJECT_NAME);
        }
        return value.getAsLong();
    }

    @Override
    public AttributeList getAttributes(final String[] names) {
        final Map<String, LongSupplier> attributes = attributes();
        final AttributeList list = new AttributeList();
        for (final String attribute : names) {
            final LongSupplier value = attributes.get(attribute);
            if (value != null) {
                list.add(new Attribute(attribute, value.getAsLong()));
            }
        }
        return list;
    }

    @Override
    public void setAttribute(final Attribute attribute) {
        throw new UnsupportedOperationException("broker metrics are read-only");
    }

    @Override
    public AttributeList setAttributes(final AttributeList attributes) {
        return new AttributeList();
    }

    @Override
    public Object invoke(final String actionName, final Object[] params, final String[] signature) {
        throw new UnsupportedOperationException("broker metrics have no operations");
    }

    @Override
    public MBeanInfo getMBeanInfo() {
        final List<MBeanAttributeInfo> infos = new ArrayList<>();
        for (final String attribute : attributes().keySet()) {
            infos.add(new MBeanAttributeInfo(attribute, "long", attribute, true, false, false));
        }
        return new MBeanInfo(
                getClass().getName(),
                "isthmus broker metrics",
                infos.toArray(new MBeanAttributeInfo[0]),
                null,
                null,
                null);
    }

    @Override
    public void close() {
        try {
            final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            if (server.isRegistered(name)) {
                server.unregisterMBean(name);
            }
        } catch (final JMException e) {
            throw new IllegalStateException("cannot unregister " + OBJECT_NAME, e);
        }
    }
}
