package dev.ace.binpacker.cluster.controller;

import dev.ace.binpacker.cluster.view.GroupBook;
import dev.ace.binpacker.workload.group.GroupIdentity;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * What a user reads about one sized group ({@code kubectl get acegroups}): derived from the group's pods as
 * {@link GroupBook} shows them and the leader's last word on why it waits. Pure: no clock, no I/O, so the
 * same ranks give the same status and an unchanged group is never written again.
 *
 * @param namespace    the group's namespace (the object's)
 * @param name         the object's name, {@link #objectName} of the group
 * @param group        the group's name inside its source, e.g. {@code llama-405b/0}
 * @param source       the controller's keys that made the group, e.g. {@code lws}
 * @param size         pods in the group, leader included
 * @param seen         live ranks ACE has seen (at most {@code size})
 * @param placed       ranks past ACE's gate: released by ACE (reserved, pinned) or admitted without it
 * @param phase        see {@link Phase}
 * @param reason       what the group waits for, with numbers; empty when placed
 * @param waitingSince creation time (epoch millis) of the oldest rank still at the gate; 0 when none is
 */
public record GroupStatus(String namespace, String name, String group, String source, int size, int seen, int placed,
                          Phase phase, String reason, long waitingSince) {

    /** A group's phase, as {@code kubectl get} prints it. */
    public enum Phase {
        /** Fewer ranks exist than the group's size, none released: the group holds nothing and waits for its pods. */
        ASSEMBLING("Assembling"),
        /** Every rank exists and waits at the gate: the whole group does not fit yet (the reason says why). */
        WAITING("Waiting"),
        /** Every rank is past the gate: the group got all its GPUs. */
        PLACED("Placed"),
        /** Some ranks run and some are missing or gated again (a lost rank): first in line, into the group's domain. */
        DEGRADED("Degraded");

        private final String label;

        Phase(String label) { this.label = label; }

        public String label() { return label; }
    }

    /**
     * The status of one group.
     *
     * @param ranks  the group's live ranks (GroupBook's first {@code size}), non-empty
     * @param reason the leader's last reason for a group that waits (null when it has none yet)
     */
    public static GroupStatus of(List<GroupBook.Rank> ranks, String reason) {
        if (ranks.isEmpty()) throw new IllegalArgumentException("a group status needs at least one rank");
        GroupIdentity id = ranks.get(0).group();
        int size = ranks.stream().mapToInt(r -> r.group().size()).min().orElse(id.size());
        int seen = Math.min(ranks.size(), size);
        int placed = (int) ranks.stream().filter(r -> !r.gated()).count();
        // whole seconds, as creationTimestamp has them: an unchanged group always derives the same status
        long since = ranks.stream().filter(GroupBook.Rank::gated).mapToLong(GroupBook.Rank::createdMillis).min().orElse(0) / 1000 * 1000;
        Phase phase;
        String why;
        if (placed >= size) {
            phase = Phase.PLACED;
            why = "";
        } else if (placed > 0) {
            phase = Phase.DEGRADED;
            why = seen < size ? (size - seen) + " of " + size + " ranks lost; waits for " + (size - seen == 1 ? "its" : "their")
                    + " replacement" + (size - seen == 1 ? "" : "s") + " (placed first, into the group's domain)"
                    : reason(reason, (seen - placed) + " replacement rank" + (seen - placed == 1 ? "" : "s") + " at the gate");
        } else if (seen < size) {
            phase = Phase.ASSEMBLING;
            why = seen + " of " + size + " pods exist; the group holds nothing until all do";
        } else {
            phase = Phase.WAITING;
            why = reason(reason, "all " + size + " ranks exist; waits for the leader's next pass");
        }
        if (why.length() > MAX_REASON) why = why.substring(0, MAX_REASON - 3) + "...";
        return new GroupStatus(id.namespace(), objectName(id), id.name(), id.source().prefix(), size, seen, placed, phase, why, since);
    }

    /** The CRD's bound on {@code status.reason} (deploy/acegroup-crd.yaml). */
    public static final int MAX_REASON = 1024;

    private static String reason(String given, String otherwise) { return given == null || given.isBlank() ? otherwise : given; }

    /** Kubernetes object names: lower-case RFC 1123 labels joined by dots, at most 253 characters. */
    private static final Pattern SUBDOMAIN = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
    private static final int MAX_NAME = 253;

    /**
     * The object's name for a group: {@code <source>.<name>} with {@code /} as {@code .} ({@code lws.llama-405b.0}),
     * readable for the names controllers make. A name that is not a valid object name that way (upper case, other
     * characters, too long: an {@code ace.dev/group} value is free text) is cleaned and given a hash of the
     * original, so two groups never share an object.
     */
    public static String objectName(GroupIdentity id) {
        String plain = id.source().prefix() + "." + id.name().replace('/', '.');
        if (plain.length() <= MAX_NAME && SUBDOMAIN.matcher(plain).matches()) return plain;
        String cleaned = plain.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9.-]+", "-").replaceAll("\\.{2,}", ".")
                .replaceAll("-*\\.-*", ".").replaceAll("^[-.]+|[-.]+$", "");
        String hash = hash(id.name());
        int room = MAX_NAME - hash.length() - 1;
        if (cleaned.length() > room) cleaned = cleaned.substring(0, room).replaceAll("[-.]+$", "");
        return cleaned.isEmpty() ? id.source().prefix() + "-" + hash : cleaned + "-" + hash;
    }

    private static String hash(String s) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d, 0, 5);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
