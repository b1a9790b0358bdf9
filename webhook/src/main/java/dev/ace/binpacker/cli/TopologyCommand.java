package dev.ace.binpacker.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.ace.binpacker.topology.GpuBoard;
import dev.ace.binpacker.topology.TopologyParseException;
import dev.ace.binpacker.topology.TopologyParser;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Path;

/**
 * {@code topology FILE [--json]}: parse {@code nvidia-smi topo -m} output (FILE {@code -} is stdin)
 * and describe the board as ACE sees it. Exit 0 on success, 1 when the text cannot be read as a
 * matrix (line-numbered message on stderr), 2 on a usage error.
 */
final class TopologyCommand implements Command {
    static final String USAGE = "usage: topology FILE [--json]   (FILE '-' reads stdin; FILE is `nvidia-smi topo -m` output)";

    private final InputStream stdin;

    TopologyCommand() { this(System.in); }

    TopologyCommand(InputStream stdin) { this.stdin = stdin; }

    @Override
    public int run(String[] args, PrintStream out, PrintStream err) {
        String file = null;
        boolean json = false;
        for (String a : args) {
            if (a.equals("--json")) {
                json = true;
            } else if (a.equals("-h") || a.equals("--help")) {
                out.println(USAGE);
                return 0;
            } else if (a.startsWith("-") && !a.equals("-")) {
                err.println("topology: unknown option " + a);
                err.println(USAGE);
                return 2;
            } else if (file != null) {
                err.println("topology: one FILE only, got '" + file + "' and '" + a + "'");
                err.println(USAGE);
                return 2;
            } else {
                file = a;
            }
        }
        if (file == null) {
            err.println(USAGE);
            return 2;
        }
        String text;
        try {
            text = Inputs.text(file, stdin);
        } catch (CliException e) {
            err.println("topology: " + e.getMessage());
            return e.exitCode();
        }
        String name = file.equals("-") ? "stdin" : Path.of(file).getFileName().toString();
        GpuBoard board;
        try {
            board = TopologyParser.parse(text, name);
        } catch (TopologyParseException e) {
            err.println("topology: " + name + ": " + e.getMessage());
            return 1;
        }
        TopologyReport report = new TopologyReport(board);
        if (json) {
            try {
                out.println(new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(report.toJson()));
            } catch (IOException e) {
                err.println("topology: cannot write JSON: " + e.getMessage());
                return 1;
            }
        } else {
            report.printText(out);
        }
        return 0;
    }
}
