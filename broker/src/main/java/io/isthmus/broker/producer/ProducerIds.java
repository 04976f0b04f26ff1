package io.isthmus.broker.producer;

/**
 * Where a broker gets the id of each new idempotent or transactional producer: never an id handed out before, by this
 * broker or, in a cluster, by any other.
 */
public interface ProducerIds {
    /**
     * The next id.
     *
     * @throws org.apache.kafka.common.errors.ApiException (retriable) if no id can be had now
     */
    long nextId();
}
