package dev.ace.binpacker.cli;

import java.io.PrintStream;
import java.util.List;
import java.util.function.Supplier;

/**
 * Every command of the webhook's jar with its help: what {@code help}, {@code help COMMAND} and {@code COMMAND --help}
 * print. {@code command} is null for {@code serve}, which Main hands to Quarkus.
 */
final class Help {
    /** The wrapper with JVM flags that suit each command; {@code java -jar webhook/target/quarkus-app/quarkus-run.jar} works too. */
    static final String RUN = "bin/ace";

    /** One command: its help (core's {@link CommandHelp}, as the simulator's and the agent's jars hold theirs) and how to run it. */
    record Entry(CommandHelp about, Supplier<Command> command) {
        Entry(String name, String summary, String usage, String details, Supplier<Command> command) {
            this(new CommandHelp(name, summary, usage, details), command);
        }

        String name() { return about.name(); }

        String summary() { return about.summary(); }

        String usage() { return about.usage(); }

        String help() { return about.text(); }
    }

    static final Entry SERVE = new Entry("serve", "run the admission webhook (the default command)",
            "usage: serve [--nodes FILE] [--cluster | --kubeconfig FILE | --standalone]", """
            The admission webhook: HTTPS on 8443 (POST /mutate, /validate, /validate-workloads), health and
            metrics on plain HTTP 9000 (/q/health/live, /q/health/ready, /q/metrics). The first log line
            says which mode was chosen and why:
              cluster mode     inside a pod (service account token present), or with --cluster or
                               --kubeconfig: watches the Nodes, Pods and Namespaces of that API server
                               (Kubernetes 1.30 or newer)
              standalone mode  everywhere else, even where a kubeconfig exists: serves the embedded demo
                               inventory (k8s/demo/nodes.yaml) or --nodes FILE; no API server is contacted

            options:
              --nodes FILE       standalone inventory: the output of `kubectl get nodes -o yaml`
              --cluster          watch the cluster of the current kubeconfig context (KUBECONFIG or ~/.kube/config)
              --kubeconfig FILE  watch the cluster of FILE's current context
              --standalone       never contact an API server, even in a pod

            Configuration: application.properties, `java -Dace.x=y -jar ...` or ACE_X=Y environment
            variables (docs/webhook.md, "Configuration"). Stops on SIGTERM or Ctrl-C.""", null);

    static final List<Entry> ENTRIES = List.of(SERVE,
            new Entry("explain", "what the webhook would do to the pods of a manifest, without a server",
                    ExplainCommand.USAGE, """
                    Prints, for each pod of FILE: class, GPUs, TP, the decision, warnings and the JSON patch
                    the mutating webhook would answer, on an empty inventory. FILE may hold several
                    documents (---) and `kind: List`; they are decided in order on one inventory, as
                    `kubectl apply -f FILE` would create them on an empty cluster. Pods are explained as
                    written; Deployments, StatefulSets, ReplicaSets, Jobs, CronJobs and LeaderWorkerSets
                    through the pod their controller would create (owner, labels, namespace), a
                    LeaderWorkerSet through its leader and its worker. Other kinds are listed as skipped.

                    options:
                      -f, --file FILE  the manifest ('-' reads standard input)
                      --nodes FILE     the inventory: `kubectl get nodes -o yaml` (default: the embedded demo inventory)
                      --policy MODE    the namespace mode: enforce (default), warn, audit, observe or exempt

                    exit: 0 every pod admitted, 3 at least one pod denied, 1 unreadable input, 2 usage error""",
                    ExplainCommand::new),
            new Entry("nodes", "how ACE reads each node of `kubectl get nodes -o yaml` (check before install)",
                    NodesCommand.USAGE, """
                    For each node: pool (label ace.dev/pool), GPUs, the board and where it came from
                    (the node agent's ace.dev/topology annotation, GPU Feature Discovery labels through the
                    board catalog, or a PCIe-only guess), NVLink domains, free cliques by size, what a
                    slicing node offers (MIG profiles, MPS), taints, and what ACE does not know and why.

                    options:
                      -f, --file FILE  the node list, '-' for standard input (default: the embedded demo inventory)
                      --json           a JSON array, one object per node

                    e.g.  kubectl get nodes -o yaml | %s nodes -f -
                    exit: 0 read, 1 unreadable input, 2 usage error""".formatted(RUN),
                    NodesCommand::new),
            new Entry("topology", "parse `nvidia-smi topo -m` output", TopologyCommand.USAGE, """
                    GPU count, board class, NVLink domains, largest clique, cliques by size, aligned blocks
                    and NUMA per GPU, as text or (--json) JSON. Bad input is reported with its line number.

                    exit: 0 parsed, 1 unreadable or not a topology matrix, 2 usage error""", TopologyCommand::new),
            elsewhere("simulate", "replay cluster traces through ACE and the baselines", "the simulator",
                    "sim/target/ace-sim.jar", "the simulator and its CP-SAT bound (OR-Tools)"),
            elsewhere("agent", "node agent: the node's link matrix, the GPUs each pod holds, the Topology Manager policy",
                    "the node agent", "agent/target/ace-agent.jar", "the node agent (agent/Dockerfile builds its image)"));

    private Help() {}

    /**
     * A command that ships in a jar of its own, so that the webhook's image carries neither the simulator's natives
     * nor the agent: its help says where it is, and running it from this jar is a usage error that says the same.
     * {@code bin/ace} runs each command from the right jar.
     */
    private static Entry elsewhere(String name, String summary, String what, String jar, String carries) {
        String where = what + " is its own jar: " + RUN + " " + name + " [options], or java -jar " + jar + " " + name;
        String details = where + ".\nThe webhook's jar and image leave out " + carries + "; `" + RUN + " " + name
                + " --help` lists the options.\n\nexit: 2 when run from the webhook's jar";
        return new Entry(name, summary, "usage: " + name + " [options]   (" + RUN + " " + name + ")", details,
                () -> (args, out, err) -> { throw CliException.usage("not in the webhook's jar; " + where); });
    }

    static Entry find(String name) {
        return ENTRIES.stream().filter(e -> e.name().equals(name)).findFirst().orElse(null);
    }

    static List<String> names() { return ENTRIES.stream().map(Entry::name).toList(); }

    static int command(String name, PrintStream out, PrintStream err) {
        Entry e = find(name);
        if (e == null) {
            err.println("no command '" + name + "'; commands: " + String.join(", ", names()));
            return CliException.USAGE;
        }
        out.println(e.help());
        return 0;
    }

    static void overview(PrintStream out) {
        out.println("ACE binpacker: an admission webhook that keeps NVLink domains whole for tensor-parallel inference.");
        out.println();
        out.println("usage: " + RUN + " [COMMAND] [options]     (or: java -jar webhook/target/quarkus-app/quarkus-run.jar [COMMAND] [options])");
        out.println();
        out.println("commands:");
        for (Entry e : ENTRIES) out.printf("  %-9s %s%n", e.name(), e.summary());
        out.println("  help      help COMMAND, or COMMAND --help: a command's options");
        out.println();
        out.println("exit codes: 0 success, 1 unreadable or invalid input, 2 usage error,");
        out.println("            3 explain: at least one pod would be denied");
    }
}
