package dev.ace.binpacker.workload;

/**
 * A pod field ACE cannot make sense of (a GPU quantity of {@code 0.5}, requests that differ from
 * limits, a TP annotation of {@code abc}). The admission layer turns it into a denial naming the field.
 */
public final class InvalidPodException extends Exception {
    private final String field;

    public InvalidPodException(String field, String problem) {
        super(field + ": " + problem);
        this.field = field;
    }

    /** The field path as kubectl prints it, e.g. {@code spec.containers[0].resources.limits["nvidia.com/gpu"]}. */
    public String field() { return field; }
}
