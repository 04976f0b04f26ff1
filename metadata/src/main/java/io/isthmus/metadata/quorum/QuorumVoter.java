package io.isthmus.metadata.quorum;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * One voter of the metadata quorum, as {@code controller.quorum.voters} names it: {@code id@host:port}.
 *
 * @param id the voter's {@code node.id}
 * @param host where its quorum port listens (an IPv6 address in brackets in the setting, bare here)
 * @param port its quorum port
 */
public record QuorumVoter(int id, String host, int port) {
    /** Kafka's name of the setting this parses. */
    public static final String SETTING = "controller.quorum.voters";

    public QuorumVoter {
        if (id < 0) {
            throw new IllegalArgumentException(SETTING + ": voter id " + id + " is negative");
        }
        if (host == null || host.isEmpty()) {
            throw new IllegalArgumentException(SETTING + ": voter " + id + " has no host");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException(SETTING + ": voter " + id + " has port " + port + ", outside 1..65535");
        }
    }

    /** {@code host:port}, with an IPv6 host in brackets. */
    public String address() {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }

    @Override
    public String toString() {
        return id + "@" + address();
    }

    /**
     * Parses Kafka's {@code controller.quorum.voters}: {@code id@host:port} entries separated by commas.
     *
     * @throws IllegalArgumentException naming the setting and the entry, for an empty list, a malformed entry or a
     *     repeated id
     */
    public static List<QuorumVoter> parseAll(String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(SETTING + " is empty; it lists every voter as id@host:port,...");
        }
        List<QuorumVoter> voters = new ArrayList<>();
        Set<Integer> ids = new HashSet<>();
        for (String entry : value.split(",")) {
            QuorumVoter voter = parse(entry.trim());
            if (!ids.add(voter.id())) {
                throw new IllegalArgumentException(SETTING + " names voter " + voter.id() + " twice: " + value);
            }
            voters.add(voter);
        }
        return List.copyOf(voters);
    }

    private static QuorumVoter parse(String entry) {
        int at = entry.indexOf('@');
        int colon = entry.lastIndexOf(':');
        if (at <= 0 || colon < at + 2 || colon == entry.length() - 1) {
            throw new IllegalArgumentException(SETTING + " entry '" + entry + "' is not id@host:port");
        }
        String host = entry.substring(at + 1, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        try {
            return new QuorumVoter(
                    Integer.parseInt(entry.substring(0, at)), host, Integer.parseInt(entry.substring(colon + 1)));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    SETTING + " entry '" + entry + "' is not id@host:port: " + e.getMessage(), e);
        }
    }
}
