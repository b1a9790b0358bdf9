package dev.ace.binpacker.admission;

import java.util.Locale;

/** Namespace label {@code ace.dev/policy}: what a denial turns into. */
public enum NamespaceMode {
    /** Deny what fractures NVLink domains (default). */
    ENFORCE,
    /** Admit, with the denial as warnings. */
    WARN,
    /** Admit; record the denial only as an annotation, an audit annotation and a metric. */
    AUDIT,
    /** ACE does nothing at all. */
    EXEMPT;

    /** The mode a label value names; null, blank or unknown values are ENFORCE (fail safe, never silently exempt). */
    public static NamespaceMode fromLabel(String value) {
        if (value == null) return ENFORCE;
        return switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "warn" -> WARN;
            case "audit" -> AUDIT;
            case "exempt" -> EXEMPT;
            default -> ENFORCE;
        };
    }

    public String label() { return name().toLowerCase(Locale.ROOT); }
}
