package dev.ace.binpacker.cli;

import java.io.PrintStream;

/** {@code topology FILE [--json]}: parse nvidia-smi topo -m output and describe the board. */
final class TopologyCommand implements Command {
    @Override
    public int run(String[] args, PrintStream out, PrintStream err) {
        err.println("topology: parser not built yet");
        return 1;
    }
}
