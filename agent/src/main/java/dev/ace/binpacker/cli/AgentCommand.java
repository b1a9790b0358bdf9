package dev.ace.binpacker.cli;

import dev.ace.binpacker.cluster.agent.KubeletTopologyPolicy;
import dev.ace.binpacker.cluster.agent.NodeReportAgent;
import dev.ace.binpacker.cluster.agent.PodResourcesClient;
import dev.ace.binpacker.cluster.agent.TopologyAgent;
import dev.ace.binpacker.cluster.report.NodeReportJson;
import dev.ace.binpacker.topology.TopologyManagerPolicy;
import dev.ace.binpacker.keys.AceKeys;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * {@code agent}: the node agent, run as a DaemonSet on GPU nodes (deploy/agent). Writes
 * {@code ace.dev/topology} (nvidia-smi topo -m) and the label {@code ace.dev/topology-manager-policy} on its own
 * Node, and which GPUs each pod really holds (kubelet PodResources API) to its node's {@code GpuNodeReport} object
 * (the Node annotation {@code ace.dev/gpu-allocation} older agents wrote is removed once). Options in {@link #USAGE}; docs/topology.md explains them.
 */
final class AgentCommand implements Command {
    static final String USAGE = "usage: agent [--node NAME] [--once] [--nvidia-smi PATH] [--command \"nvidia-smi topo -m\"]"
            + " [--pod-resources-socket PATH] [--no-pod-resources] [--kubelet-config PATH] [--topology-manager-policy POLICY]"
            + " [--interval 10m] [--report-interval 10s] [--command-timeout 30s]";

    /** {@code help agent}; the agent is its own jar and image (agent/target/ace-agent.jar, agent/Dockerfile). */
    static final CommandHelp HELP = new CommandHelp("agent", "node agent: the node's link matrix, the GPUs each pod holds, the Topology Manager policy", USAGE, """
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
                    exit: 0 written (--once), 1 the command or the API call failed, 2 usage error""");

    /** Parsed options; defaults are the DaemonSet's (deploy/agent). */
    record Options(String node, String nvidiaSmi, List<String> topologyCommand, Path socket, boolean podResources,
                   Path kubeletConfig, TopologyManagerPolicy policy, Duration interval, Duration reportInterval,
                   Duration timeout, boolean once) {
        static Options parse(String[] args, String nodeFromEnv) {
            String node = nodeFromEnv;
            String nvidiaSmi = "nvidia-smi";
            String command = null;
            Path socket = Path.of("/var/lib/kubelet/pod-resources/kubelet.sock");
            boolean podResources = true;
            Path kubeletConfig = Path.of("/var/lib/kubelet/config.yaml");
            TopologyManagerPolicy policy = null;
            Duration interval = Duration.ofMinutes(10);
            Duration reportInterval = Duration.ofSeconds(10);
            Duration timeout = Duration.ofSeconds(30);
            boolean once = false;
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--node" -> node = value(args, ++i, "--node");
                    case "--nvidia-smi" -> nvidiaSmi = value(args, ++i, "--nvidia-smi");
                    case "--command" -> command = value(args, ++i, "--command");
                    case "--pod-resources-socket" -> socket = Path.of(value(args, ++i, "--pod-resources-socket"));
                    case "--no-pod-resources" -> podResources = false;
                    case "--kubelet-config" -> kubeletConfig = Path.of(value(args, ++i, "--kubelet-config"));
                    case "--topology-manager-policy" -> policy = TopologyManagerPolicy.parse(value(args, ++i, "--topology-manager-policy"));
                    case "--interval" -> interval = parseInterval(value(args, ++i, "--interval"));
                    case "--report-interval" -> reportInterval = parseInterval(value(args, ++i, "--report-interval"));
                    case "--command-timeout" -> timeout = parseInterval(value(args, ++i, "--command-timeout"));
                    case "--once" -> once = true;
                    default -> throw new IllegalArgumentException("unknown option " + args[i]);
                }
            }
            List<String> topo = command != null ? List.of("sh", "-c", command) : List.of(nvidiaSmi, "topo", "-m");
            return new Options(node, nvidiaSmi, topo, socket, podResources, kubeletConfig, policy, interval, reportInterval, timeout, once);
        }

        /** The option if given, else the kubelet configuration file, else unknown. */
        NodeReportAgent.PolicySource policySource() {
            return () -> policy != null ? Optional.of(policy) : KubeletTopologyPolicy.read(kubeletConfig);
        }
    }

    @Override
    public int run(String[] args, PrintStream out, PrintStream err) throws Exception {
        Options o;
        try {
            o = Options.parse(args, System.getenv("NODE_NAME"));
        } catch (IllegalArgumentException e) {
            err.println("agent: " + e.getMessage());
            err.println(USAGE);
            return 2;
        }
        try (KubernetesClient client = new KubernetesClientBuilder().build();
             PodResourcesClient kubelet = new PodResourcesClient(o.socket(), o.timeout())) {
            TopologyAgent topology = new TopologyAgent(client, o.node(), o.topologyCommand(), o.timeout().toSeconds());
            NodeReportAgent report = o.podResources()
                    ? new NodeReportAgent(client, o.node(), o.nvidiaSmi(), kubelet, o.policySource(), o.timeout(), Clock.systemUTC()) : null;
            long nextTopology = System.nanoTime();
            while (true) {
                boolean ok = true;
                if (System.nanoTime() - nextTopology >= 0) {
                    ok = round(() -> out.println("agent: " + topology.runOnce().name().toLowerCase() + " "
                            + TopologyAgent.ANNOTATION + " on " + o.node()), err);
                    nextTopology = System.nanoTime() + o.interval().toNanos();
                }
                if (report != null) {
                    ok &= round(() -> {
                        NodeReportAgent.Result r = report.runOnce();
                        out.println("agent: GpuNodeReport of " + o.node() + " " + r.name().toLowerCase()
                                + (o.once() ? ": " + report.published().map(NodeReportJson::write).orElse("") : ""));
                    }, err);
                }
                if (o.once()) return ok ? 0 : 1;
                Thread.sleep(report == null ? o.interval().toMillis() : o.reportInterval().toMillis());
            }
        }
    }

    private interface Round { void run() throws IOException, InterruptedException; }

    /** One duty's round; an error is reported and the loop goes on (a DaemonSet restart would not fix a hung GPU). */
    private static boolean round(Round r, PrintStream err) throws InterruptedException {
        try {
            r.run();
            return true;
        } catch (IOException e) {
            err.println("agent: " + e.getMessage());
            return false;
        }
    }

    private static String value(String[] args, int i, String flag) {
        if (i >= args.length) throw new IllegalArgumentException(flag + " needs a value");
        return args[i];
    }

    /** "90s", "10m", "1h" or plain seconds. */
    static Duration parseInterval(String s) {
        String t = s.trim();
        try {
            if (t.endsWith("s")) return Duration.ofSeconds(Long.parseLong(t.substring(0, t.length() - 1)));
            if (t.endsWith("m")) return Duration.ofMinutes(Long.parseLong(t.substring(0, t.length() - 1)));
            if (t.endsWith("h")) return Duration.ofHours(Long.parseLong(t.substring(0, t.length() - 1)));
            return Duration.ofSeconds(Long.parseLong(t));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("durations are 90s, 10m, 1h or seconds, got '" + s + "'");
        }
    }
}
