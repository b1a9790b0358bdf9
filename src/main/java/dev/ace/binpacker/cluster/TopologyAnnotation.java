package dev.ace.binpacker.cluster;

import dev.ace.binpacker.topology.GpuBoard;

/** The {@code ace.dev/topology} annotation -> board; the nvidia-smi parser lands with the topology work. */
final class TopologyAnnotation {
    private TopologyAnnotation() {}

    static GpuBoard parse(String text, String nodeName) {
        throw new IllegalArgumentException("topology parser not available yet");
    }
}
