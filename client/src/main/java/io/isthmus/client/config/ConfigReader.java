package io.isthmus.client.config;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

/**
 * Typed access to a map of settings as Kafka clients take them (values may be strings or already typed). Unknown keys
 * are rejected, so a typo does not silently fall back to a default.
 */
public final class ConfigReader {
    private final Map<String, Object> values;

    public ConfigReader(final Map<String, ?> values, final Set<String> known, final String clientKind) {
        this.values = new HashMap<>(values);
        for (final String key : values.keySet()) {
            if (!known.contains(key)) {
                throw new IllegalArgumentException(
                        "unknown " + clientKind + " setting: key=" + key + ", known=" + new java.util.TreeSet<>(known));
            }
        }
    }

    /** The names of several groups of settings, as one set: a client's known keys. */
    @SafeVarargs
    public static Set<String> union(final Set<String>... groups) {
        final Set<String> all = new HashSet<>();
        for (final Set<String> group : groups) {
            all.addAll(group);
        }
        return Set.copyOf(all);
    }

    public static Map<String, Object> toMap(final Properties properties) {
        final Map<String, Object> map = new HashMap<>();
        for (final String name : properties.stringPropertyNames()) {
            map.put(name, properties.getProperty(name));
        }
        return map;
    }

    public String string(final String key, final String defaultValue) {
        final Object value = values.get(key);
        return value == null ? defaultValue : value.toString().trim();
    }

    public int integer(final String key, final int defaultValue, final int min) {
        final long value = longValue(key, defaultValue, min);
        if (value > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(
                    "setting out of range: key=" + key + ", value=" + value + ", max=" + Integer.MAX_VALUE);
        }
        return (int) value;
    }

    public long longValue(final String key, final long defaultValue, final long min) {
        final Object raw = values.get(key);
        final long value;
        if (raw == null) {
            value = defaultValue;
        } else if (raw instanceof Number number) {
            value = number.longValue();
        } else {
            try {
                value = Long.parseLong(raw.toString().trim());
            } catch (final NumberFormatException e) {
                throw new IllegalArgumentException("setting is not a number: key=" + key + ", value=" + raw, e);
            }
        }
        if (value < min) {
            throw new IllegalArgumentException("setting too small: key=" + key + ", value=" + value + ", min=" + min);
        }
        return value;
    }

    public boolean bool(final String key, final boolean defaultValue) {
        final Object raw = values.get(key);
        if (raw == null) {
            return defaultValue;
        }
        if (raw instanceof Boolean b) {
            return b;
        }
        final String s = raw.toString().trim().toLowerCase(Locale.ROOT);
        if (s.equals("true") || s.equals("false")) {
            return Boolean.parseBoolean(s);
        }
        throw new IllegalArgumentException("setting is not true/false: key=" + key + ", value=" + raw);
    }

    public String oneOf(final String key, final String defaultValue, final String... allowed) {
        final String value = string(key, defaultValue).toLowerCase(Locale.ROOT);
        for (final String a : allowed) {
            if (a.equals(value)) {
                return value;
            }
        }
        throw new IllegalArgumentException("setting has no such value: key=" + key + ", value=" + value + ", allowed="
                + String.join("|", allowed));
    }
}
