package dev.ace.binpacker.placement;

import java.util.List;
import java.util.Map;

/** One node-affinity matchExpression: In, NotIn, Exists, DoesNotExist, Gt, Lt. */
public record LabelRequirement(String key, String operator, List<String> values) {
    public LabelRequirement {
        values = values == null ? List.of() : List.copyOf(values);
    }

    public boolean matches(Map<String, String> labels) {
        String v = labels.get(key);
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

    private static int compare(String a, String b) {
        try {
            return Long.compare(Long.parseLong(a.trim()), Long.parseLong(b.trim()));
        } catch (NumberFormatException e) {
            return 0; // not an integer: neither greater nor less, so Gt/Lt fail
        }
    }
}
