package dev.ace.binpacker.topology;

/**
 * {@code nvidia-smi topo -m} text that cannot be read as a GPU link matrix. Unchecked: callers
 * either show the message (CLI, annotation status) or fall back to the board catalog.
 */
public final class TopologyParseException extends RuntimeException {
    private final int line;

    public TopologyParseException(int line, String problem) {
        super("line " + line + ": " + problem);
        this.line = line;
    }

    /** 1-based line of the input where the problem was found. */
    public int line() { return line; }
}
