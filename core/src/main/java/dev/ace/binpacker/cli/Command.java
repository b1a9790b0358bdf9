package dev.ace.binpacker.cli;

import java.io.PrintStream;

/** One subcommand of the binary. Returns the process exit code. */
public interface Command {
    int run(String[] args, PrintStream out, PrintStream err) throws Exception;
}
