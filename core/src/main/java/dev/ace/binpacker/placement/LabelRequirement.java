package dev.ace.binpacker.placement;

import java.util.List;
import java.util.Map;

/**
 * One node-affinity matchExpression: In, NotIn, Exists, DoesNotExist, Gt, Lt; or, with the key {@link #NODE_NAME}, a
 * matchFields requirement on {@code metadata.name}, the only field Kubernetes supports there, matched against the
 * node's name (not its hostname label, which may differ from it).
 */
public record LabelRequirement(String key, String operator, List<String> values) {
    /** The key of a requirement on the node's name: no label key can hold a NUL character, so no label can match it. */
    public static final String NODE_NAME = "\u0000metadata.name";

    public LabelRequirement {
        values = values == null ? List.of() : List.copyOf(values);
    }

    /** A matchFields requirement on {@code metadata.name}. */
    public static LabelRequirement nodeName(String operator, List<String> values) {
        return new LabelRequirement(NODE_NAME, operator, values);
    }

    /** Against a node's labels, with the node's name for a requirement on {@code metadata.name}. */
    public boolean matches(String nodeName, Map<String, String> labels) {
        String v = NODE_NAME.equals(key) ? nodeName : labels.get(key);
        return switch (operator) {
            case "In" -> v != null && values.contains(v);
            case "NotIn" -> v == null || !values.contains(v);
            case "Exists" -> v != null;
            case "DoesNotExist" -> v == null;
            case "Gt" -> v != null && !values.isEmpty() && compare(v, values.get(0)) > 0;
            case "Lt" -> v != null && !values.isEmpty() && compare(v, values.get(0)) < 0;
            default -> false; // an unknown operator matches nothing, as the scheduler rejects it
        };
    }

    /** Against labels only: a requirement on {@code metadata.name} reads the hostname label (nodes the kubelet registered). */
    public boolean matches(Map<String, String> labels) { return matches(labels.get("kubernetes.io/hostname"), labels); }

    private static int compare(String a, String b) {
        try {
            return Long.compare(Long.parseLong(a.trim()), Long.parseLong(b.trim()));
        } catch (NumberFormatException e) {
            return 0; // not an integer: neither greater nor less, so Gt/Lt fail
        }
    }
}
