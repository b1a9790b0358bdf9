package dev.ace.binpacker.cluster.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ace.binpacker.topology.GpuBoard;
import dev.ace.binpacker.topology.TopologyManagerPolicy;
import dev.ace.binpacker.truth.NodeReport;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The {@code ace.dev/gpu-allocation} node annotation: a {@link NodeReport} as compact JSON, GPU
 * sets as index lists, empty lists left out:
 * {@code {"generation":3,"observedAt":"...","topologyManagerPolicy":"none","gpus":8,"healthy":[0,..,7],
 * "pods":[{"namespace":"ml","name":"vllm-0","gpus":[4,5,6,7]},{"namespace":"ml","name":"embed","shared":[1]}],"unmapped":[],
 * "uuids":["GPU-...",..]}} ({@code uuids}: GPU i's UUID at position i, left out when unknown).
 */
public final class NodeReportJson {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private NodeReportJson() {}

    public static String write(NodeReport r) {
        return tree(r).toString();
    }

    /** The report as a JSON object (what {@link #write} prints; a GpuNodeReport's spec adds {@code node}). */
    public static ObjectNode tree(NodeReport r) {
        ObjectNode o = MAPPER.createObjectNode();
        o.put("generation", r.generation());
        if (r.observedAt() != null) o.put("observedAt", r.observedAt());
        o.put("topologyManagerPolicy", r.policy().label());
        o.put("gpus", r.gpuCount());
        indices(o.putArray("healthy"), r.healthy());
        ArrayNode pods = o.putArray("pods");
        for (NodeReport.PodDevices p : r.pods()) {
            ObjectNode n = pods.addObject();
            n.put("namespace", p.namespace());
            n.put("name", p.name());
            if (p.gpus() != 0) indices(n.putArray("gpus"), p.gpus());
            if (p.shared() != 0) indices(n.putArray("shared"), p.shared());
            if (p.mig() != 0) indices(n.putArray("mig"), p.mig());
        }
        if (!r.unmapped().isEmpty()) {
            ArrayNode u = o.putArray("unmapped");
            r.unmapped().forEach(u::add);
        }
        if (!r.uuids().isEmpty()) {
            ArrayNode u = o.putArray("uuids");
            r.uuids().forEach(u::add);
        }
        return o;
    }

    /** The report an annotation holds, or empty when there is none or it does not read (written by someone else). */
    public static Optional<NodeReport> read(String json) {
        if (json == null || json.isBlank()) return Optional.empty();
        try {
            JsonNode n = MAPPER.readTree(json);
            if (!n.isObject() || !n.path("generation").canConvertToLong()) return Optional.empty();
            List<NodeReport.PodDevices> pods = new ArrayList<>();
            for (JsonNode p : n.path("pods")) {
                String ns = p.path("namespace").asText("");
                String name = p.path("name").asText("");
                if (ns.isEmpty() || name.isEmpty()) return Optional.empty();
                pods.add(new NodeReport.PodDevices(ns, name, mask(p.path("gpus")), mask(p.path("shared")), mask(p.path("mig"))));
            }
            List<String> unmapped = new ArrayList<>();
            for (JsonNode u : n.path("unmapped")) unmapped.add(u.asText());
            List<String> uuids = new ArrayList<>();
            for (JsonNode u : n.path("uuids")) {
                if (!u.isTextual() || !u.asText().startsWith("GPU-")) return Optional.empty();
                uuids.add(u.asText());
            }
            return Optional.of(new NodeReport(n.path("generation").asLong(),
                    n.hasNonNull("observedAt") ? n.get("observedAt").asText() : null,
                    TopologyManagerPolicy.parseOrNone(n.path("topologyManagerPolicy").asText(null)),
                    n.path("gpus").asInt(0), mask(n.path("healthy")), pods, unmapped, uuids));
        } catch (Exception e) {
            return Optional.empty();
        }
    }

    private static void indices(ArrayNode a, long mask) {
        for (int g : GpuBoard.indices(mask)) a.add(g);
    }

    private static long mask(JsonNode list) {
        long m = 0;
        for (JsonNode g : list) {
            int i = g.asInt(-1);
            if (i < 0 || i >= GpuBoard.MAX_GPUS) throw new IllegalArgumentException("GPU index out of range: " + g);
            m |= 1L << i;
        }
        return m;
    }
}
