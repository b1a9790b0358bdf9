package dev.ace.binpacker.cli;

import java.io.PrintStream;
import java.util.List;
import java.util.function.Supplier;

/** Every command's name, one-line summary, usage and help text: what {@code help}, {@code help COMMAND} and {@code COMMAND --help} print. */
final class Help {
    /** The wrapper with JVM flags that suit each command; {@code java -jar target/quarkus-app/quarkus-run.jar} works too. */
    static final String RUN = "bin/ace";

    /** One command. {@code command} is null for {@code serve}, which Main hands to Quarkus. */
    record Entry(String name, String summary, String usage, String details, Supplier<Command> command) {
        String help() { return usage + "\n\n" + details; }
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
                      --policy MODE    the namespace mode: enforce (default), warn, audit or exempt

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
            new Entry("simulate", "replay cluster traces through ACE and the baselines",
                    "usage: simulate --trace openb-<variant>|POD_LIST.csv|fleet|fleet:FILE.csv [options]", """
                    Replays the Alibaba openb pod lists (FGD's protocol) or a generated TP inference fleet
                    through ACE's allocator and the baselines (FGD, Kubernetes, HiveD, ...). See
                    docs/benchmarks.md for every table's command.

                    options:
                      --policies a,b,c    policies to compare (default: all)
                      --seeds 42-51       seeds (ranges and lists)
                      --arrival 130       openb: arrival as percent of cluster GPU capacity
                      --json              JSON instead of a table
                      --report DIR        write JSON, HTML and SVG charts to DIR
                      --data DIR          where the traces are (default tests/traces)
                      --pods N --rate R --mix share=25,single=30,tp2=17,tp4=17,tp8=7,batch=4   fleet traces
                      --generate-fleet FILE.csv --seed N   write a fleet trace and stop
                      --optimal NODES [--time-limit 60]    CP-SAT bound on a sub-cluster

                    exit: 0 done, 1 unreadable trace, 2 usage error""", SimulateCommand::new),
            new Entry("agent", "node agent: the node's link matrix, the GPUs each pod holds, the Topology Manager policy",
                    AgentCommand.USAGE, """
                    Runs on each GPU node (DaemonSet deploy/agent, or the Helm chart's agent.enabled) and writes,
                    for its own Node (NODE_NAME by default):
                      ace.dev/topology                  Node annotation: `nvidia-smi topo -m`, every --interval; ACE
                                                        then uses the measured link matrix instead of the board catalog
                      GpuNodeReport <node>              which GPUs each pod really holds (the kubelet's PodResources
                                                        API), checked every --report-interval, written on change; the
                                                        Node annotation ace.dev/gpu-allocation older agents wrote is
                                                        removed once
                      ace.dev/topology-manager-policy   Node label: the kubelet's Topology Manager policy

                    options:
                      --node NAME                     the Node to write (default: $NODE_NAME)
                      --once                          one round, then exit (prints the report)
                      --nvidia-smi PATH               nvidia-smi to run (default: nvidia-smi on PATH)
                      --command "CMD"                 the topology command instead (run by sh -c; default: nvidia-smi topo -m)
                      --pod-resources-socket PATH     the kubelet's socket (default /var/lib/kubelet/pod-resources/kubelet.sock)
                      --no-pod-resources              write ace.dev/topology only (no GpuNodeReport)
                      --kubelet-config PATH           KubeletConfiguration to read the policy from (default
                                                      /var/lib/kubelet/config.yaml, kubeadm's; GKE and EKS: docs/install.md)
                      --topology-manager-policy P     none, best-effort, restricted or single-numa-node, instead of
                                                      reading --kubelet-config
                      --interval 10m                  how often nvidia-smi topo -m runs
                      --report-interval 10s           how often the kubelet is asked which GPUs pods hold
                      --command-timeout 30s           limit of one command or kubelet call

                    durations: 90s, 10m, 1h or plain seconds
                    exit: 0 written (--once), 1 the command or the API call failed, 2 usage error""", AgentCommand::new));

    private Help() {}

    static boolean isHelpWord(String a) { return a.equals("help") || a.equals("--help") || a.equals("-h"); }

    static boolean asked(String[] args) {
        for (String a : args) if (a.equals("--help") || a.equals("-h")) return true;
        return false;
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
        out.println("usage: " + RUN + " [COMMAND] [options]     (or: java -jar target/quarkus-app/quarkus-run.jar [COMMAND] [options])");
        out.println();
        out.println("commands:");
        for (Entry e : ENTRIES) out.printf("  %-9s %s%n", e.name(), e.summary());
        out.println("  help      help COMMAND, or COMMAND --help: a command's options");
        out.println();
        out.println("exit codes: 0 success, 1 unreadable or invalid input, 2 usage error,");
        out.println("            3 explain: at least one pod would be denied");
    }
}
