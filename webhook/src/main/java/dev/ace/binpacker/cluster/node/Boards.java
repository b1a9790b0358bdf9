package dev.ace.binpacker.cluster.node;

import dev.ace.binpacker.topology.BoardCatalog;
import dev.ace.binpacker.topology.BoardInference;
import dev.ace.binpacker.topology.BoardInterner;
import dev.ace.binpacker.topology.GpuBoard;
import dev.ace.binpacker.topology.TopologyParseException;
import dev.ace.binpacker.topology.TopologyParser;
import dev.ace.binpacker.keys.AceKeys;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Node -> board: the {@code ace.dev/topology} annotation (exact matrix from the node agent), else
 * the GFD labels through {@link BoardCatalog}, else, when the labels count GPUs of a product the
 * catalog does not know, a PCIe-only board of that many GPUs ({@link UnknownBoards}).
 *
 * <p>Boards are interned ({@link BoardInterner}): every node with the same matrix gets the same
 * board object, which is what keeps the packer's index at one group per kind of machine. The
 * last annotation texts seen are remembered, so a Node update that does not touch the annotation
 * (every label or status change) costs a map lookup, not a parse.
 */
final class Boards implements BoardResolver {
    /** Distinct annotation texts remembered; a fleet has a handful of machine types, not hundreds. */
    static final int PARSED_TEXTS = 256;

    private final BoardInterner interner;
    private final Map<String, GpuBoard> parsed = new ConcurrentHashMap<>();

    Boards() { this(BoardInterner.shared()); }

    Boards(BoardInterner interner) { this.interner = interner; }

    @Override
    public Resolved resolve(String nodeName, Map<String, String> labels, Map<String, String> annotations) {
        String problem = null;
        String topo = annotations.get(dev.ace.binpacker.keys.AceKeys.TOPOLOGY);
        if (topo != null && !topo.isBlank()) {
            try {
                GpuBoard b = annotated(topo);
                return new Resolved(b, "annotation", labels.get(BoardCatalog.PRODUCT_LABEL), null);
            } catch (TopologyParseException e) {
                problem = "bad " + dev.ace.binpacker.keys.AceKeys.TOPOLOGY + " annotation: " + e.getMessage();
            }
        }
        BoardInference inf = BoardCatalog.infer(labels);
        if (inf.board().isPresent()) {
            return new Resolved(inf.board().get(), inf.source(), inf.product(), problem);
        }
        if (inf.gpuCount() > 0) {
            String why = problem == null ? inf.reason() : problem + "; " + inf.reason();
            GpuBoard b = interner.intern(UnknownBoards.pcieOnly("unknown " + inf.product(), inf.gpuCount()));
            return new Resolved(b, "unknown:" + inf.product(), inf.product(), why);
        }
        return new Resolved(null, "none", inf.product().isEmpty() ? null : inf.product(), problem == null ? inf.reason() : problem);
    }

    private GpuBoard annotated(String text) {
        GpuBoard known = parsed.get(text);
        if (known != null) return known;
        // Named by what it is, not by the first node that carried it: the board is shared.
        GpuBoard b = TopologyParser.parse(text, AceKeys.TOPOLOGY + " annotation");
        b = interner.intern(b);
        if (parsed.size() >= PARSED_TEXTS) parsed.clear();
        parsed.put(text, b);
        return b;
    }
}
