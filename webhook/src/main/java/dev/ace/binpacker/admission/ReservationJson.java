package dev.ace.binpacker.admission;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ace.binpacker.placement.Reservation;
import dev.ace.binpacker.topology.GpuBoard;
import java.util.Optional;

/** The {@code ace.dev/reservation} annotation: {@code {"id","node","gpus":[..],"domain","tp"}}. */
public final class ReservationJson {
    private ReservationJson() {}

    public static String write(ObjectMapper mapper, Reservation r) {
        ObjectNode o = mapper.createObjectNode();
        o.put("id", r.id());
        o.put("node", r.node());
        var gpus = o.putArray("gpus");
        for (int g : r.gpus()) gpus.add(g);
        if (r.domain() == null) o.putNull("domain");
        else o.put("domain", r.domain());
        o.put("tp", r.tp());
        return o.toString();
    }

    /** The reservation an annotation describes (pending, created at {@code nowMillis}), or empty when it is not one. */
    public static Optional<Reservation> read(ObjectMapper mapper, String json, long nowMillis) {
        if (json == null || json.isBlank()) return Optional.empty();
        try {
            JsonNode n = mapper.readTree(json);
            String id = n.path("id").asText("");
            String node = n.path("node").asText("");
            JsonNode gpus = n.path("gpus");
            if (id.isEmpty() || node.isEmpty() || !gpus.isArray() || gpus.isEmpty()) return Optional.empty();
            long mask = 0;
            for (JsonNode g : gpus) {
                if (!g.canConvertToInt() || g.asInt() < 0 || g.asInt() >= GpuBoard.MAX_GPUS) return Optional.empty();
                mask |= 1L << g.asInt();
            }
            String domain = n.hasNonNull("domain") ? n.get("domain").asText() : null;
            int tp = Math.max(1, n.path("tp").asInt(Long.bitCount(mask)));
            return Optional.of(new Reservation(id, node, mask, 1000, 0, tp, domain, nowMillis, true));
        } catch (Exception e) {
            return Optional.empty();
        }
    }
}
