package dev.ace.binpacker.cli;

/**
 * What {@code help COMMAND} and {@code COMMAND --help} print for one command: its name, the one-line summary of the
 * overview, the usage line (printed again on a usage error) and the details. Each jar (webhook, simulator, agent)
 * holds the help of the commands it runs.
 */
public record CommandHelp(String name, String summary, String usage, String details) {
    public String text() { return usage + "\n\n" + details; }
}
