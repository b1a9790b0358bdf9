package dev.ace.binpacker.placement;

import java.util.Locale;

/** Node pools, from the node label {@code ace.dev/pool}; unlabelled nodes are {@link #GENERAL}. */
public enum Pool {
    /** Flagship NVLink boards kept for tensor-parallel inference. */
    INFERENCE,
    /** MIG / MPS / time-sliced GPUs for small work. */
    SLICING,
    /** Everything else. */
    GENERAL;

    /** The pool a label value names; null or blank is GENERAL; an unknown value is GENERAL too (and reported by the caller). */
    public static Pool fromLabel(String value) {
        if (value == null || value.isBlank()) return GENERAL;
        return switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "inference" -> INFERENCE;
            case "slicing" -> SLICING;
            default -> GENERAL;
        };
    }

    public String label() { return name().toLowerCase(Locale.ROOT); }
}
