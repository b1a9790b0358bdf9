package dev.ace.binpacker.placement;

import java.util.Locale;
import java.util.Optional;

/** What a pod is for; decides where it may go. Values of the label {@code ace.dev/workload-class}. */
public enum WorkloadClass {
    INFERENCE, EMBEDDING, BATCH, INTERACTIVE, UNKNOWN;

    public static Optional<WorkloadClass> fromLabel(String value) {
        if (value == null) return Optional.empty();
        return switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "inference" -> Optional.of(INFERENCE);
            case "embedding" -> Optional.of(EMBEDDING);
            case "batch" -> Optional.of(BATCH);
            case "interactive" -> Optional.of(INTERACTIVE);
            default -> Optional.empty();
        };
    }

    public String label() { return name().toLowerCase(Locale.ROOT); }
}
