package io.isthmus.metadata.controller;

import org.apache.kafka.common.protocol.Errors;

/** A refusal of one topic or partition of a request, with the error Kafka would answer and the reason. */
final class MetadataRequestException extends RuntimeException {
    final Errors error;

    /** Kafka cannot encode a string over 32,767 bytes; messages quote request content, so they are kept short. */
    static final int MAX_MESSAGE_CHARS = 1_000;

    MetadataRequestException(Errors error, String message) {
        super(
                message.length() <= MAX_MESSAGE_CHARS ? message : message.substring(0, MAX_MESSAGE_CHARS) + "...",
                null,
                false,
                false);
        this.error = error;
    }
}
