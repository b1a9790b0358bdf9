package dev.ace.binpacker.workload;

/**
 * A tenant's value quoted in a message, at most {@link #MAX} characters: messages are split into warnings,
 * logged and written into annotations, and a 7 MiB annotation value must cost none of that (issue 17).
 */
public final class Clip {
    public static final int MAX = 64;

    private Clip() {}

    public static String of(String s) {
        if (s == null) return "null";
        return s.length() <= MAX ? s : s.substring(0, MAX) + "... (" + s.length() + " characters)";
    }
}
