package dev.ace.binpacker.cluster.ledger;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ace.binpacker.placement.Reservation;
import dev.ace.binpacker.topology.GpuBoard;
import dev.ace.binpacker.keys.AceKeys;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * {@link LedgerDoc} as a {@code GpuLedger} object (CRD in deploy/gpuledger-crd.yaml). {@code spec}
 * holds the entries, {@code status} the counts kubectl prints; both are written in one update, so
 * the counts never disagree with the entries they summarise.
 *
 * <pre>
 * spec:   {node, reportGeneration, entries: [{id, gpus: [0,1], tp, domain, state: pending|bound, exact, created,
 *                           owner: {requestUid, namespace, podName, podUid}}]}
 * status: {gpus, allocatable, held, pending, confirmed, foreign, free}
 * </pre>
 * {@code state: bound} means tied to its pod's UID (not bound to a node by the scheduler); {@code exact: true}
 * means the node agent reported the pod on exactly these GPUs; {@code reportGeneration} is the generation
 * of the node's report the leader last applied.
 */
public final class LedgerCodec {
    static final String API_VERSION = AceKeys.LEDGER_GROUP + "/" + AceKeys.LEDGER_VERSION;

    private final ObjectMapper json;

    public LedgerCodec(ObjectMapper json) { this.json = json; }

    GenericKubernetesResource write(LedgerDoc d) {
        ObjectNode o = json.createObjectNode();
        o.put("apiVersion", API_VERSION);
        o.put("kind", AceKeys.LEDGER_KIND);
        ObjectNode meta = o.putObject("metadata");
        meta.put("name", d.node());
        if (d.resourceVersion() != null) meta.put("resourceVersion", d.resourceVersion());
        ObjectNode spec = o.putObject("spec");
        spec.put("node", d.node());
        if (d.reportGeneration() > 0) spec.put("reportGeneration", d.reportGeneration());
        ArrayNode entries = spec.putArray("entries");
        for (Reservation r : d.entries()) entries.add(entry(r));
        ObjectNode status = o.putObject("status");
        status.put("gpus", d.capacity().gpus());
        status.put("allocatable", d.capacity().usable());
        status.put("held", d.held());
        status.put("pending", d.pending());
        status.put("confirmed", d.confirmed());
        status.put("foreign", d.capacity().foreign());
        status.put("free", d.free());
        return json.convertValue(o, GenericKubernetesResource.class);
    }

    private ObjectNode entry(Reservation r) {
        ObjectNode e = json.createObjectNode();
        e.put("id", r.id());
        ArrayNode gpus = e.putArray("gpus");
        for (int g : r.gpus()) gpus.add(g);
        e.put("tp", r.tp());
        if (r.domain() != null) e.put("domain", r.domain());
        e.put("state", r.pending() ? "pending" : "bound");
        if (r.exact()) e.put("exact", true);
        if (r.createdAtMillis() > 0) e.put("created", Instant.ofEpochMilli(r.createdAtMillis()).toString());
        ObjectNode owner = e.putObject("owner");
        putIf(owner, "requestUid", r.owner().requestUid());
        putIf(owner, "namespace", r.owner().namespace());
        putIf(owner, "podName", r.owner().podName());
        putIf(owner, "podUid", r.owner().podUid());
        return e;
    }

    private static void putIf(ObjectNode o, String k, String v) {
        if (v != null) o.put(k, v);
    }

    public LedgerDoc read(GenericKubernetesResource res) {
        JsonNode o = json.valueToTree(res);
        String node = o.path("spec").path("node").asText(o.path("metadata").path("name").asText());
        List<Reservation> entries = new ArrayList<>();
        for (JsonNode e : o.path("spec").path("entries")) {
            long mask = 0;
            for (JsonNode g : e.path("gpus")) {
                if (g.canConvertToInt() && g.asInt() >= 0 && g.asInt() < GpuBoard.MAX_GPUS) mask |= 1L << g.asInt();
            }
            String id = e.path("id").asText("");
            if (id.isEmpty() || mask == 0) continue; // an entry a person broke by hand holds nothing ACE can name
            JsonNode ow = e.path("owner");
            Reservation.Owner owner = new Reservation.Owner(text(ow, "requestUid"), text(ow, "namespace"), text(ow, "podName"), text(ow, "podUid"));
            entries.add(new Reservation(id, node, mask, 1000, 0, Math.max(1, e.path("tp").asInt(1)), text(e, "domain"),
                    created(text(e, "created")), !"bound".equals(e.path("state").asText()), owner, Reservation.Kind.ACE,
                    e.path("exact").asBoolean(false)));
        }
        JsonNode st = o.path("status");
        LedgerDoc.Capacity c = new LedgerDoc.Capacity(st.path("gpus").asInt(0), st.path("allocatable").asInt(0), st.path("foreign").asInt(0));
        return new LedgerDoc(node, o.path("metadata").path("resourceVersion").asText(null), c, entries,
                Math.max(0, o.path("spec").path("reportGeneration").asLong(0)));
    }

    private static String text(JsonNode o, String k) {
        JsonNode v = o.get(k);
        return v == null || v.isNull() || v.asText().isEmpty() ? null : v.asText();
    }

    private static long created(String ts) {
        try {
            return ts == null ? 0 : Instant.parse(ts).toEpochMilli();
        } catch (RuntimeException e) {
            return 0;
        }
    }
}
