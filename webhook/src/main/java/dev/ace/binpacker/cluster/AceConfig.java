package dev.ace.binpacker.cluster;

import dev.ace.binpacker.keys.AceKeys;
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

    Admission admission();

    Controller controller();

    Tls tls();

    Connections connections();

    Dra dra();

    Queue queue();

    /** The gated queue of TP pods (docs/webhook.md "The gated queue"). */
    interface Queue {
        /**
         * Once the oldest waiting TP pod has waited this long (from its creation), the node earmarked for it takes no other
         * pod: new admissions, group ranks and later waiters are placed elsewhere or wait, and the node drains to it
         * (issue 34). {@code 0s} turns the bound off: the earmark is then soft for ever, and a stream of small pods can
         * keep the oldest waiter pending. 5 minutes: the wait the capacity table's floor allows a TP replica at p95.
         */
        @WithDefault("5m")
        Duration starvationBound();
    }

    interface Dra {
        /**
         * DRA drivers whose devices are GPUs: the devices of allocated ResourceClaims ({@code resource.k8s.io/v1}) of
         * these drivers count as held on their node, like the GPUs of pods ACE did not place. A MIG device of the
         * NVIDIA driver holds its parent GPU.
         */
        @WithDefault("gpu.nvidia.com")
        java.util.Set<String> gpuDrivers();
    }

    interface Standalone {
        /** YAML {@code kind: List} of Node objects ({@code kubectl get nodes -o yaml}); empty = the embedded demo inventory. */
        Optional<String> nodes();

        /** Namespace -> policy mode (enforce, warn, audit, exempt), standing in for the {@code ace.dev/policy} namespace label. */
        Map<String, String> namespacePolicies();

        /**
         * Mode of namespaces not listed in {@code namespace-policies}, standalone only; when unset,
         * {@code ace.policy.default-mode} (the same default in both modes).
         */
        Optional<String> defaultPolicy();
    }

    interface Policy {
        /**
         * Mode of namespaces without the {@code ace.dev/policy} label: enforce (default), warn, audit, observe or exempt.
         * Roll ACE out with {@code observe}, then {@code warn}, then {@code enforce} (docs/rollout.md).
         */
        @WithDefault("enforce")
        String defaultMode();

        /**
         * Every namespace observes, whatever its label says (exempt ones stay exempt): ACE changes no pod and records
         * every decision it would take.
         */
        @WithDefault("false")
        boolean observeOnly();

        /** Taint key of slicing-pool nodes; quarantined pods get a NoSchedule toleration for it. */
        @WithDefault(AceKeys.POOL)
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

        /**
         * Pools multi-GPU batch, interactive and unclassified pods are tried on, in order; the first that holds the pod
         * wins, and a pool left out is never used for them (placement.BatchRule; docs/webhook.md). Pool slicing takes
         * only batch and interactive work, on nodes that offer whole GPUs; pool inference only aligned cliques, past the
         * reserve of free 8-cliques.
         */
        @WithDefault("slicing,general,inference")
        String batchPools();

        /** Pool inference takes no multi-GPU batch or interactive pod while a TP replica waits for a clique. */
        @WithDefault("true")
        boolean batchYieldsToWaitingTp();

        /**
         * GPU reservations of one namespace that may wait for their pod at once; past it a new one is denied. Bounds what
         * a flood of admissions (or one tenant whose pods are denied elsewhere) can hold before the pending TTL frees it.
         */
        @WithDefault("32")
        int maxPendingPerNamespace();

        /**
         * How long a reservation's pod may take to appear before the reservation counts against
         * {@code max-pending-per-namespace}. A reservation whose pod any replica's informer has seen never counts.
         */
        @WithDefault("5s")
        Duration pendingGrace();

        /**
         * Reservations of one namespace made within {@code pending-grace} whose pods have not appeared yet; past it a new
         * one is denied. Bounds what a flood faster than the grace can hold; a burst of pods that are being created stays
         * far below it (their pods appear within milliseconds).
         */
        @WithDefault("64")
        int maxArrivingPerNamespace();
    }

    interface Reservations {
        /**
         * An untied reservation whose pod has not appeared after this long is released (the pod was denied elsewhere, or
         * nobody meant to create it: an AdmissionReview posted straight to the webhook); the leader measures it with its
         * own clock. A pod appears milliseconds after its admission, so seconds are enough (issue 17: 5 minutes let three
         * unauthenticated reviews hold 24 GPUs); raise it only if webhooks called after ACE take longer.
         */
        @WithDefault("15s")
        Duration pendingTtl();
    }

    /** What one review may cost the webhook (issue 17, docs/webhook.md "Threat model"). */
    interface Admission {
        /**
         * Longest a review is worked on, from the moment its body is read, before it is answered anyway: a pod with whole
         * GPUs is then denied in enforce (admitted with a warning in warn/audit). Shorter than the webhooks'
         * {@code timeoutSeconds} (5 s in webhook-config/), so the API server always gets ACE's answer, never its
         * failurePolicy.
         */
        @WithDefault("3s")
        Duration timeBudget();

        /** Reviews decided at once; more wait for a slot (within their time budget) instead of all slowing down together. */
        @WithDefault("16")
        int maxInFlight();
    }

    /** The leader-elected controller that releases gated pods and keeps the ledger (docs/webhook.md, "What ACE counts"). */
    interface Controller {
        /** Namespace of the Lease (set from the pod's namespace in deploy/). */
        @WithDefault("ace-system")
        String namespace();

        /** Name of the {@code coordination.k8s.io} Lease the replicas compete for. */
        @WithDefault("ace-binpacker")
        String leaseName();

        /** How long a Lease holds without renewal before another replica may take it. */
        @WithDefault("15s")
        Duration leaseDuration();

        /** A leader that could not renew for this long stops leading (shorter than the lease, so two never lead at once). */
        @WithDefault("10s")
        Duration renewDeadline();

        /** How often the Lease is renewed, or tried for by a replica that does not lead. */
        @WithDefault("2s")
        Duration retryPeriod();

        /** Reconcile at least this often (watch events wake it sooner). */
        @WithDefault("2s")
        Duration interval();

        /** An entry tied to a pod this replica has not seen, or one its pod does not carry, is released after this long. */
        @WithDefault("30s")
        Duration absentGrace();

        /**
         * The leader ties a reservation to its pod's UID in the ledger once the reservation is this old: a burst's
         * admissions are writing the same node objects meanwhile, and nothing waits for the tie (the pending cap of
         * every replica counts the pods its own informer has seen).
         */
        @WithDefault("2s")
        Duration tieDelay();

        /** A pinned pod that cannot bind because its node is over-committed is repaired after this long. */
        @WithDefault("10s")
        Duration stuckGrace();

        /**
         * A node report ({@code ace.dev/gpu-allocation}) that offers no GPU at all, on a node that has GPUs, is
         * believed only after this long (a restarting device plugin offers nothing until it registers again);
         * until then ACE keeps the health of the node's last report.
         */
        @WithDefault("2m")
        Duration emptyReportGrace();

        /**
         * The leader reconciles every node's keys again this often whatever its watch events said: the safety net
         * behind the events, which bring a key at once.
         */
        @WithDefault("60s")
        Duration resync();
    }

    interface Tls {
        /** Generate a self-signed certificate at startup when {@code quarkus.tls.key-store.pem.0.cert} is not set. */
        @WithDefault("true")
        boolean selfSigned();

        /**
         * PEM file of the CA(s) that sign the API server's client certificate. When set, the HTTPS port requires a client
         * certificate issued by them (mutual TLS) and refuses every other caller during the handshake; unset (the
         * default), any client may connect and the NetworkPolicy and the per-namespace cap are the guards.
         */
        Optional<String> clientCa();

        /**
         * How often the serving certificate and key ({@code quarkus.tls.webhook.key-store.pem.0.cert/key}) and the client CA
         * are re-read. A changed, valid pair is swapped in for the next handshake (web/ServingTls); a half-written or
         * mismatched one is refused and logged, and the current one stays.
         */
        @WithDefault("10s")
        Duration reloadPeriod();
    }

    /** What one HTTPS connection may hold before it sends a request (issue 34; web/ConnectionLimits). */
    interface Connections {
        /**
         * A TLS handshake must finish within this, or the connection is closed. The API server handshakes in milliseconds
         * (same cluster); 5 s leaves room for a loaded node and keeps a connection that sends nothing from holding a
         * socket for the Vert.x default of 10 s.
         */
        @WithDefault("5s")
        Duration handshakeTimeout();

        /**
         * A handshaken connection that has sent no request within this is closed. 10 s: the API server sends its
         * review right after it connects; after the first request the connection keeps {@code quarkus.http.idle-timeout}
         * (120 s), longer than the API server's own 90 s idle keep-alive, so its long-lived connections stay open.
         * Without it an idle connection held one of the {@code quarkus.http.limits.max-connections} slots for 120 s.
         */
        @WithDefault("10s")
        Duration firstRequestTimeout();
    }
}
