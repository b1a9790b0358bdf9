package dev.ace.binpacker.admission;

import com.fasterxml.jackson.databind.node.ArrayNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What a handler answers, before {@link ReviewCodec#complete} adds uid, apiVersion and the base64
 * patch. Build with the named helpers; {@code outcome} is the bounded metric label.
 */
public record AdmissionResult(boolean allowed, int code, String message, ArrayNode patch, List<String> warnings,
                              Map<String, String> auditAnnotations, String outcome) {
    /** Kubernetes drops warnings over 120 characters (FACTS "Admission API"). */
    public static final int MAX_WARNING = 120;
    /** ... and all warnings past 4096 characters in total. */
    public static final int MAX_WARNINGS_TOTAL = 4096;

    public AdmissionResult {
        warnings = clean(warnings);
        auditAnnotations = auditAnnotations == null ? Map.of() : Map.copyOf(auditAnnotations);
    }

    public static AdmissionResult allowed(String reason) {
        return new AdmissionResult(true, 200, reason, null, List.of(), Map.of(), "allowed");
    }

    public static AdmissionResult denied(String message, List<String> warnings) {
        return new AdmissionResult(false, 403, message, null, warnings, Map.of(), "denied");
    }

    /** Allowed with a JSON patch; an empty patch is sent as no patch at all. */
    public static AdmissionResult patched(ArrayNode patch, List<String> warnings, Map<String, String> audit, String outcome) {
        ArrayNode p = patch == null || patch.isEmpty() ? null : patch;
        return new AdmissionResult(true, 200, null, p, warnings, audit, p == null ? "allowed" : outcome);
    }

    /** The request itself is bad (HTTP status as the code); nothing was reserved. */
    public static AdmissionResult errored(int code, String message) {
        return new AdmissionResult(false, code, message, null, List.of(), Map.of(), "error");
    }

    public AdmissionResult withWarnings(List<String> extra) {
        List<String> all = new ArrayList<>(warnings);
        all.addAll(extra);
        return new AdmissionResult(allowed, code, message, patch, all, auditAnnotations, outcome);
    }

    /** At most 120 characters each, no "Warning:" prefix, 4096 in total, no duplicates. */
    static List<String> clean(List<String> in) {
        if (in == null || in.isEmpty()) return List.of();
        List<String> out = new ArrayList<>();
        int total = 0;
        for (String w : in) {
            if (w == null || w.isBlank()) continue;
            String s = w.strip();
            if (s.regionMatches(true, 0, "warning:", 0, 8)) s = s.substring(8).strip();
            if (s.length() > MAX_WARNING) s = s.substring(0, MAX_WARNING - 3) + "...";
            if (out.contains(s)) continue;
            if (total + s.length() > MAX_WARNINGS_TOTAL) break;
            total += s.length();
            out.add(s);
        }
        return List.copyOf(out);
    }
}
