package dev.ace.binpacker.cluster.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.ace.binpacker.topology.TopologyManagerPolicy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The node's Topology Manager policy from the kubelet configuration file (a KubeletConfiguration in
 * YAML, or JSON as EKS writes it; YAML reads both). A file without {@code topologyManagerPolicy}
 * means the kubelet default, {@code none}. A policy given on the kubelet's command line
 * ({@code --topology-manager-policy}) is not in the file: pass it to the agent instead.
 */
public final class KubeletTopologyPolicy {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    private KubeletTopologyPolicy() {}

    /** The policy the file sets, or empty when the file is absent (the agent then publishes no label). */
    public static Optional<TopologyManagerPolicy> read(Path kubeletConfig) throws IOException {
        if (kubeletConfig == null || !Files.isRegularFile(kubeletConfig)) return Optional.empty();
        JsonNode n = YAML.readTree(kubeletConfig.toFile());
        String v = n == null ? null : n.path("topologyManagerPolicy").asText(null);
        try {
            return Optional.of(TopologyManagerPolicy.parse(v));
        } catch (IllegalArgumentException e) {
            throw new IOException(kubeletConfig + ": " + e.getMessage(), e);
        }
    }
}
