package io.isthmus.metadata.controller;

import org.apache.kafka.common.protocol.Errors;

/** A refusal of one topic or partition of a request, with the error Kafka would answer and the reason. */
final class MetadataRequestException extends RuntimeException {
    final Errors error;

    MetadataRequestException(Errors error, String message) {
        super(message, null, false, false);
        this.error = error;
    }
}
