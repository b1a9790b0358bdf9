package dev.ace.binpacker.cluster;

import dev.ace.binpacker.topology.BoardCatalog;
import dev.ace.binpacker.topology.BoardInference;
import dev.ace.binpacker.topology.GpuBoard;
import dev.ace.binpacker.topology.TopologyParseException;
import dev.ace.binpacker.topology.TopologyParser;
import java.util.Map;

/**
 * Node -> board: the {@code ace.dev/topology} annotation (exact matrix from the node agent), else
 * the GFD labels through {@link BoardCatalog}, else, when the labels count GPUs of a product the
 * catalog does not know, a PCIe-only board of that many GPUs ({@link UnknownBoards}).
 */
final class Boards implements BoardResolver {
    @Override
    public Resolved resolve(String nodeName, Map<String, String> labels, Map<String, String> annotations) {
        String problem = null;
        String topo = annotations.get(dev.ace.binpacker.workload.AceKeys.TOPOLOGY);
        if (topo != null && !topo.isBlank()) {
            try {
                GpuBoard b = TopologyParser.parse(topo, nodeName);
                return new Resolved(b, "annotation", labels.get(BoardCatalog.PRODUCT_LABEL), null);
            } catch (TopologyParseException e) {
                problem = "bad " + dev.ace.binpacker.workload.AceKeys.TOPOLOGY + " annotation: " + e.getMessage();
            }
        }
        BoardInference inf = BoardCatalog.infer(labels);
        if (inf.board().isPresent()) {
            return new Resolved(inf.board().get(), inf.source(), inf.product(), problem);
        }
        if (inf.gpuCount() > 0) {
            String why = problem == null ? inf.reason() : problem + "; " + inf.reason();
            return new Resolved(UnknownBoards.pcieOnly("unknown " + inf.product(), inf.gpuCount()), "unknown:" + inf.product(), inf.product(), why);
        }
        return new Resolved(null, "none", inf.product().isEmpty() ? null : inf.product(), problem == null ? inf.reason() : problem);
    }
}
