package dev.ace.binpacker.cluster.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ace.binpacker.truth.NodeReport;
import dev.ace.binpacker.keys.AceKeys;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.util.Map;
import java.util.Optional;

/**
 * The node agents' reports on the API server: one cluster-scoped {@code gpunodereports.ace.dev} object per
 * node, named after it, whose {@code spec} is the report ({@link NodeReportJson}'s fields plus {@code node}).
 * Only ACE watches these, so a GPU pod's start or stop no longer updates the Node that every Node watcher of
 * the cluster receives. The agent creates its object once and then replaces its spec with one JSON patch per
 * change.
 */
public final class NodeReportStore {
    static final ResourceDefinitionContext CONTEXT = new ResourceDefinitionContext.Builder()
            .withGroup(AceKeys.LEDGER_GROUP).withVersion(AceKeys.LEDGER_VERSION).withKind(AceKeys.REPORT_KIND)
            .withPlural(AceKeys.REPORT_PLURAL).withNamespaced(false).build();
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final KubernetesClient client;

    public NodeReportStore(KubernetesClient client) {
        this.client = client;
    }

    public NonNamespaceOperation<GenericKubernetesResource, GenericKubernetesResourceList, Resource<GenericKubernetesResource>> objects() {
        return client.genericKubernetesResources(CONTEXT);
    }

    /** The node's object, if it exists. */
    public Optional<GenericKubernetesResource> get(String node) {
        return Optional.ofNullable(objects().withName(node).get());
    }

    /** The report an object holds, or empty when its spec does not read as one (written by someone else). */
    public static Optional<NodeReport> read(GenericKubernetesResource r) {
        return NodeReportJson.read(specText(r));
    }

    /** The object's spec as JSON text, the form {@link NodeReports} compares and parses; null without a spec. */
    public static String specText(GenericKubernetesResource r) {
        Object spec = r == null || r.getAdditionalProperties() == null ? null : r.getAdditionalProperties().get("spec");
        if (spec == null) return null;
        return MAPPER.valueToTree(spec).toString();
    }

    /** The node an object reports on: {@code spec.node} when it names the same node as the object, else null (ignored). */
    public static String node(GenericKubernetesResource r) {
        String name = r.getMetadata() == null ? null : r.getMetadata().getName();
        Object spec = r.getAdditionalProperties() == null ? null : r.getAdditionalProperties().get("spec");
        Object node = spec instanceof Map<?, ?> m ? m.get("node") : null;
        return name != null && name.equals(node) ? name : null;
    }

    /** Creates the node's object with this report. */
    public void create(String node, NodeReport report) {
        GenericKubernetesResource r = new GenericKubernetesResource();
        r.setApiVersion(AceKeys.LEDGER_GROUP + "/" + AceKeys.LEDGER_VERSION);
        r.setKind(AceKeys.REPORT_KIND);
        r.setMetadata(new ObjectMetaBuilder().withName(node).build());
        r.setAdditionalProperty("spec", MAPPER.convertValue(spec(node, report), Map.class));
        objects().resource(r).create();
    }

    /**
     * Replaces the object's report with this one: one JSON patch {@code replace /spec} (no resourceVersion: only
     * this node's agent writes it; RFC 6902 replaces the spec whole, lists included).
     */
    public void replace(String node, NodeReport report) {
        ObjectNode op = MAPPER.createObjectNode();
        op.put("op", "replace").put("path", "/spec").set("value", spec(node, report));
        objects().withName(node).patch(PatchContext.of(PatchType.JSON), MAPPER.createArrayNode().add(op).toString());
    }

    /** The object's spec for a report: {@link NodeReportJson}'s fields plus {@code node}. */
    public static ObjectNode spec(String node, NodeReport report) {
        return NodeReportJson.tree(report).put("node", node);
    }
}
