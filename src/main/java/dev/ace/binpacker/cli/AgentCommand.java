package dev.ace.binpacker.cli;

import dev.ace.binpacker.cluster.TopologyAgent;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;

/**
 * {@code agent [--node NAME] [--command "nvidia-smi topo -m"] [--interval 10m] [--once]}: the node
 * agent, run as a DaemonSet on GPU nodes (deploy/agent). Writes {@code ace.dev/topology} on its node.
 */
final class AgentCommand implements Command {
    @Override
    public int run(String[] args, PrintStream out, PrintStream err) throws Exception {
        String node = System.getenv("NODE_NAME");
        String command = "nvidia-smi topo -m";
        Duration interval = Duration.ofMinutes(10);
        boolean once = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--node" -> node = value(args, ++i, "--node");
                case "--command" -> command = value(args, ++i, "--command");
                case "--interval" -> interval = parseInterval(value(args, ++i, "--interval"));
                case "--once" -> once = true;
                default -> {
                    err.println("agent: unknown option " + args[i]);
                    err.println("usage: agent [--node NAME] [--command \"nvidia-smi topo -m\"] [--interval 10m] [--once]");
                    return 2;
                }
            }
        }
        try (KubernetesClient client = new KubernetesClientBuilder().build()) {
            TopologyAgent agent = new TopologyAgent(client, node, List.of("sh", "-c", command), 60);
            while (true) {
                try {
                    TopologyAgent.Result r = agent.runOnce();
                    out.println("agent: " + r.name().toLowerCase() + " " + TopologyAgent.ANNOTATION + " on " + node);
                } catch (java.io.IOException e) {
                    err.println("agent: " + e.getMessage());
                    if (once) return 1;
                }
                if (once) return 0;
                Thread.sleep(interval.toMillis());
            }
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
            throw new IllegalArgumentException("--interval takes 90s, 10m, 1h or seconds, got '" + s + "'");
        }
    }
}
