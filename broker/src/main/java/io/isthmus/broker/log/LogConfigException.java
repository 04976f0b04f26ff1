package io.isthmus.broker.log;

/** A log setting is missing a legal value. The message names the key, the value and what would be legal. */
public final class LogConfigException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public LogConfigException(final String key, final String value, final String requirement) {
        super("invalid log config: key=" + key + " value=" + value + " requirement=" + requirement);
    }
}
