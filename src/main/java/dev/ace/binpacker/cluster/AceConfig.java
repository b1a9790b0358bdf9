package dev.ace.binpacker.cluster;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/** ACE configuration ({@code ace.*} in application.properties, or {@code ACE_*} environment variables). */
@ConfigMapping(prefix = "ace")
public interface AceConfig {
    /**
     * {@code auto} (default): cluster mode inside a pod (service account token and
     * {@code KUBERNETES_SERVICE_HOST}), else standalone; a kubeconfig on a workstation is not enough.
     * {@code standalone}: never talk to an API server. {@code cluster}: always ({@code serve --cluster}).
     */
    @WithDefault("auto")
    String mode();

    /**
     * What cluster mode does on an API server older than Kubernetes 1.30 (scheduling gates,
     * ValidatingAdmissionPolicy and webhook matchConditions are GA from 1.30): {@code refuse} to
     * start (default) or {@code warn} and run.
     */
    @WithDefault("refuse")
    String olderKubernetes();

    Standalone standalone();

    Policy policy();

    Reservations reservations();

    Tls tls();

    interface Standalone {
        /** YAML {@code kind: List} of Node objects ({@code kubectl get nodes -o yaml}); empty = the embedded demo inventory. */
        Optional<String> nodes();

        /** Namespace -> policy mode (enforce, warn, audit, exempt), standing in for the {@code ace.dev/policy} namespace label. */
        Map<String, String> namespacePolicies();

        /** Mode of namespaces not listed in {@code namespace-policies}. */
        @WithDefault("enforce")
        String defaultPolicy();
    }

    interface Policy {
        /** Taint key of slicing-pool nodes; quarantined pods get a NoSchedule toleration for it. */
        @WithDefault("ace.dev/pool")
        String slicingTaintKey();

        /** Memory an embedding/reranker pod needs when it has no {@code ace.dev/gpu-memory}: smallest MIG profile of at least this. */
        @WithDefault("10Gi")
        String embeddingMemory();

        /** Memory a 1-GPU notebook needs when it has no {@code ace.dev/gpu-memory}. */
        @WithDefault("10Gi")
        String interactiveMemory();

        /** 1-GPU batch/evaluation pods get a whole-GPU MIG profile (7g.*) unless they say {@code ace.dev/gpu-memory}. */
        @WithDefault("true")
        boolean batchWholeGpu();

        /** Free 8-GPU cliques on the inference pool that multi-GPU batch and interactive pods may not take. */
        @WithDefault("1")
        int reserveFree8Cliques();
    }

    interface Reservations {
        /** Namespace of the per-node ledger ConfigMaps shared by the replicas (set from the pod's namespace in deploy/). */
        @WithDefault("ace-system")
        String ledgerNamespace();

        /** How often pending reservations are checked for expiry. */
        @WithDefault("30s")
        Duration expiryInterval();

        /** A reservation whose pod has not appeared after this long is released (the pod was denied elsewhere). */
        @WithDefault("5m")
        Duration pendingTtl();
    }

    interface Tls {
        /** Generate a self-signed certificate at startup when {@code quarkus.tls.key-store.pem.0.cert} is not set. */
        @WithDefault("true")
        boolean selfSigned();
    }
}
