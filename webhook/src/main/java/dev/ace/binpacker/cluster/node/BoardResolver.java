package dev.ace.binpacker.cluster.node;

import dev.ace.binpacker.topology.GpuBoard;
import java.util.Map;

/** Node labels and annotations -> the node's GPU board (null board: no GPUs). */
@FunctionalInterface
public interface BoardResolver {
    /**
     * @param source  where the board came from: {@code annotation}, {@code catalog:<product>}, {@code unknown:<product>}, {@code none}
     * @param problem why a better source was not used (bad annotation, unknown product), or null
     */
    record Resolved(GpuBoard board, String source, String gpuModel, String problem) {}

    Resolved resolve(String nodeName, Map<String, String> labels, Map<String, String> annotations);
}
