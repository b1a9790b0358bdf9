package dev.ace.binpacker.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ace.binpacker.admission.AdmissionEngine;
import dev.ace.binpacker.admission.AdmissionRequest;
import dev.ace.binpacker.admission.Json;
import dev.ace.binpacker.admission.NamespaceMode;
import dev.ace.binpacker.admission.NamespacePolicies;
import dev.ace.binpacker.admission.PendingDemand;
import dev.ace.binpacker.admission.ReviewCodec;
import dev.ace.binpacker.cluster.AdmissionWiring;
import dev.ace.binpacker.cluster.OfflineConfig;
import dev.ace.binpacker.observability.Metrics;
import dev.ace.binpacker.placement.Allocator;
import dev.ace.binpacker.workload.Pods;
import io.fabric8.kubernetes.api.model.Pod;

/**
 * Production's admission engine over a benchmark's fleet ({@link AdmissionWiring} with the packaged settings, as
 * {@code serve} builds it, namespace {@code ml} enforced) and the review of a vLLM TP pod it is asked about
 * (a dry run unless asked otherwise).
 */
record ProductionAdmission(AdmissionEngine engine, AdmissionRequest review) {
    static ProductionAdmission of(Allocator allocator, int tp) {
        return of(allocator, tp, true);
    }

    /** As {@link #of(Allocator, int)}, the review a dry run or not: a committed one reserves the clique it is given. */
    static ProductionAdmission of(Allocator allocator, int tp, boolean dryRun) {
        ObjectMapper json = Json.newMapper();
        AdmissionEngine engine = AdmissionWiring.of(OfflineConfig.packaged(), AdmissionWiring.Edge.standalone(() -> allocator,
                new PendingDemand(Metrics.NOOP), json, NamespacePolicies.always(NamespaceMode.ENFORCE), () -> 0L)).engine();
        Pod pod = Pods.gpuPod("vllm/vllm-openai:v0.8.5", "[--model, m, --tensor-parallel-size, '" + tp + "']", Integer.toString(tp), null);
        return new ProductionAdmission(engine, new AdmissionRequest("bench", ReviewCodec.API_VERSION, "Pod", null, "CREATE", "ml",
                pod.getMetadata().getName(), dryRun, json.valueToTree(pod), pod));
    }
}
