package dev.ace.binpacker.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.ace.binpacker.cluster.node.NodeMapper;
import java.io.InputStream;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code nodes [-f FILE] [--json]}: how ACE reads each node of {@code kubectl get nodes -o yaml}, the
 * check before install: pool, board and its source, NVLink domains, free cliques, what the slicing
 * pool offers, and what is unknown and why ({@link NodeReport}).
 */
final class NodesCommand implements Command {
    static final String USAGE = "usage: nodes [-f NODES.yaml | -] [--json]";

    private final InputStream stdin;

    NodesCommand() { this(System.in); }

    NodesCommand(InputStream stdin) { this.stdin = stdin; }

    @Override
    public int run(String[] args, PrintStream out, PrintStream err) throws Exception {
        String file = null;
        boolean json = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "-f", "--file" -> file = Main.value(args, ++i, args[i - 1]);
                case "--json" -> json = true;
                default -> {
                    if (args[i].startsWith("-") && !args[i].equals("-")) throw CliException.usage("unknown argument '" + args[i] + "'");
                    if (file != null) throw CliException.usage("one node file at a time, got '" + file + "' and '" + args[i] + "'");
                    file = args[i];
                }
            }
        }
        Inventory inv = Inventory.load(file, stdin);
        NodeMapper mapper = NodeMapper.standard();
        List<NodeReport> reports = new ArrayList<>();
        for (int i = 0; i < inv.nodes().size(); i++) {
            reports.add(NodeReport.of(inv.nodes().get(i), inv.infos().get(i), mapper.resolve(inv.nodes().get(i))));
        }
        if (json) {
            out.println(new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(reports));
            return 0;
        }
        long gpuNodes = reports.stream().filter(r -> r.gpus() > 0).count();
        long withUnknowns = reports.stream().filter(r -> r.gpus() > 0 && !r.unknown().isEmpty()).count();
        out.println(reports.size() + " nodes from " + inv.source() + ": " + gpuNodes + " with GPUs, " + withUnknowns
                + " of them with something ACE does not know (a node list carries no pods: every GPU counts as free)");
        for (NodeReport r : reports) {
            out.println();
            out.print(r.text());
        }
        return 0;
    }
}
