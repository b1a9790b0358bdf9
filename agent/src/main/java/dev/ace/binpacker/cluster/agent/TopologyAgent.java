package dev.ace.binpacker.cluster.agent;

import dev.ace.binpacker.topology.GpuBoard;
import dev.ace.binpacker.topology.TopologyParseException;
import dev.ace.binpacker.topology.TopologyParser;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.util.List;
import java.util.Objects;

/**
 * The node agent: runs {@code nvidia-smi topo -m} on its own node and writes the output to the
 * node annotation {@code ace.dev/topology}, where the webhook reads the exact link matrix.
 * Output that does not parse is never written (the webhook would then reject it node by node);
 * an unchanged matrix is not rewritten, so a steady fleet makes no API writes.
 */
public final class TopologyAgent {
    public static final String ANNOTATION = dev.ace.binpacker.keys.AceKeys.TOPOLOGY;

    /** What one round did. */
    public enum Result { WRITTEN, UNCHANGED }

    private final KubernetesClient client;
    private final String nodeName;
    private final List<String> command;
    private final long timeoutSeconds;

    public TopologyAgent(KubernetesClient client, String nodeName, List<String> command, long timeoutSeconds) {
        this.client = Objects.requireNonNull(client, "client");
        if (nodeName == null || nodeName.isBlank()) {
            throw new IllegalArgumentException("the agent needs its node name (--node or the NODE_NAME env set from spec.nodeName)");
        }
        this.nodeName = nodeName;
        this.command = List.copyOf(command);
        this.timeoutSeconds = timeoutSeconds;
    }

    /** Runs the command, checks its output parses, and writes the annotation if it changed. */
    public Result runOnce() throws IOException, InterruptedException {
        String text = runCommand();
        GpuBoard board;
        try {
            board = TopologyParser.parse(text, nodeName);
        } catch (TopologyParseException e) {
            throw new IOException("'" + String.join(" ", command) + "' printed something that is not a topology matrix: "
                    + e.getMessage(), e);
        }
        Node node = client.nodes().withName(nodeName).get();
        if (node == null) throw new IOException("node " + nodeName + " does not exist");
        String current = node.getMetadata().getAnnotations() == null ? null : node.getMetadata().getAnnotations().get(ANNOTATION);
        if (text.equals(current)) return Result.UNCHANGED;
        try {
            // edit() sends a JSON patch of just this annotation, so the kubelet's concurrent status
            // updates cannot make it fail on a stale resourceVersion.
            client.nodes().withName(nodeName).edit(n -> {
                if (n.getMetadata().getAnnotations() == null) n.getMetadata().setAnnotations(new java.util.HashMap<>());
                n.getMetadata().getAnnotations().put(ANNOTATION, text);
                return n;
            });
        } catch (KubernetesClientException e) {
            throw new IOException("could not annotate node " + nodeName + ": " + e.getMessage(), e);
        }
        System.err.println("ace agent: wrote " + ANNOTATION + " on " + nodeName + " (" + board + ")");
        return Result.WRITTEN;
    }

    private String runCommand() throws IOException, InterruptedException {
        return CommandRunner.run(command, java.time.Duration.ofSeconds(timeoutSeconds));
    }
}
