package dev.ace.binpacker.cli;

/**
 * A failure the user can act on: the message names the input and the problem, the exit code is one
 * of those {@code help} documents ({@link #INPUT} 1: unreadable or invalid input, {@link #USAGE} 2).
 */
public final class CliException extends Exception {
    public static final int INPUT = 1;
    public static final int USAGE = 2;

    private final int exitCode;

    public CliException(int exitCode, String message) {
        super(message);
        this.exitCode = exitCode;
    }

    public static CliException usage(String message) { return new CliException(USAGE, message); }

    public static CliException input(String message) { return new CliException(INPUT, message); }

    public int exitCode() { return exitCode; }
}
