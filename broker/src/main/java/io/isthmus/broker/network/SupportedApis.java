package io.isthmus.broker.network;

import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/** Which API versions this broker serves: checked before a request body is even parsed. */
public interface SupportedApis {
    boolean supports(ApiKeys apiKey, short version);

    /** The ApiVersions v0 body saying UNSUPPORTED_VERSION and listing what is served. */
    ApiMessage unsupportedVersionResponse();

    /** The served version range of one API, for log messages, e.g. {@code "0..12"} or {@code "none"}. */
    String describe(ApiKeys apiKey);
}
