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
    /**
     * Change nothing: every pod is admitted as it came (no pin, rewrite, gate or annotation, nothing reserved) and the
     * decision ACE would have taken is only recorded: a metric, an audit annotation, an Event and a log line. The mode
     * to roll ACE out with (docs/rollout.md).
     */
    OBSERVE,
    /** ACE does nothing at all. */
    EXEMPT;

    /** The mode a label value names; null, blank or unknown values are ENFORCE (fail safe, never silently exempt). */
    public static NamespaceMode fromLabel(String value) {
        return fromLabel(value, ENFORCE);
    }

    /** As {@link #fromLabel(String)}, with {@code unlabelled} for a namespace without the label (the configured default). */
    public static NamespaceMode fromLabel(String value, NamespaceMode unlabelled) {
        if (value == null) return unlabelled;
        return switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "warn" -> WARN;
            case "audit" -> AUDIT;
            case "observe" -> OBSERVE;
            case "exempt" -> EXEMPT;
            default -> ENFORCE;
        };
    }

    /** A mode named in configuration; anything else is an error (a typo must not weaken or harden a whole cluster silently). */
    public static NamespaceMode parse(String value, String property) {
        String v = value == null ? "" : value.trim().toLowerCase(Locale.ROOT);
        for (NamespaceMode m : values()) if (m.label().equals(v)) return m;
        throw new IllegalArgumentException(property + " must be one of enforce, warn, audit, observe, exempt; got '" + value + "'");
    }

    public String label() { return name().toLowerCase(Locale.ROOT); }
}
