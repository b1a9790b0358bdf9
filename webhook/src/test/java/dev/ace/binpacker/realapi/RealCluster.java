package dev.ace.binpacker.realapi;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequest;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * The suite's one real cluster, started on first use and shared by every {@code *IT} class of
 * {@code dev.ace.binpacker.realapi} (see {@link RealApiTest}): the {@link ControlPlane}, the project's install
 * ({@link AceInstall}), the GPU nodes ({@link GpuNodes#BASE} and {@link GpuNodes#FIXTURE_NODE}), two
 * {@link AceReplica}s behind a {@link RoundRobinProxy}, and a {@link Kubelet}. Stopped by the JVM's shutdown hook.
 */
public final class RealCluster {
    /**
     * The settings the replicas get beyond the shipped defaults. An untied reservation (its pod never reached etcd,
     * e.g. an API server stopped mid-request) expires after 45 s (the shipped default is 15 s; the 45 s dates from a 5-minute default), within a scenario.
     * One concurrent HTTP/2 stream per connection: one API server keeps one HTTP/2 connection to a webhook URL, so
     * behind a per-connection balancer (kube-proxy, or {@link RoundRobinProxy}) every admission would go to one
     * replica; a cluster sees both replicas answer because it has several API servers. With the limit, the API server
     * opens a connection for every admission running beside another, and the proxy spreads them over both replicas
     * (with 2, fast admissions seldom overlapped by three and a race once ran on one replica only).
     */
    static final Map<String, String> REPLICA_PROPERTIES = Map.of("ace.reservations.pending-ttl", "45s",
            "quarkus.http.limits.max-concurrent-streams", "1");

    private static RealCluster instance;
    private static Throwable failed;

    private final ControlPlane controlPlane;
    private final RoundRobinProxy proxy;
    private final List<AceReplica> replicas;
    private final GpuNodes nodes;
    private final Kubelet kubelet;
    private final Ledgers ledgers;

    private RealCluster(ControlPlane cp, RoundRobinProxy proxy, List<AceReplica> replicas, GpuNodes nodes, Kubelet kubelet) {
        this.controlPlane = cp;
        this.proxy = proxy;
        this.replicas = replicas;
        this.nodes = nodes;
        this.kubelet = kubelet;
        this.ledgers = new Ledgers(cp.admin());
    }

    /** The running cluster, started on the first call; a failed start fails every later call with the same cause. */
    static synchronized RealCluster get(KubeBinaries bin) {
        if (instance != null) return instance;
        if (failed != null) throw new IllegalStateException("the real cluster failed to start (see the first failure)", failed);
        try {
            instance = start(bin);
            return instance;
        } catch (Throwable t) {
            failed = t;
            Suite.killAll();
            throw new IllegalStateException("the real cluster failed to start", t);
        }
    }

    private static RealCluster start(KubeBinaries bin) throws Exception {
        Path dir = Files.createDirectories(Path.of("target", "realapi")).resolve("run-" + System.currentTimeMillis());
        ControlPlane cp = new ControlPlane(bin, dir);
        Runtime.getRuntime().addShutdownHook(new Thread(cp::stop, "realapi-control-plane-stop"));
        cp.start();
        AceInstall.applyDeploy(cp);
        GpuNodes nodes = new GpuNodes(cp.admin());
        for (String n : GpuNodes.BASE) nodes.create(n, n);
        nodes.create(GpuNodes.FIXTURE_NODE, GpuNodes.FIXTURE_NODE);
        Path kubeconfig = cp.writeTokenKubeconfig("ace-binpacker", token(cp.admin(), AceInstall.SERVICE_ACCOUNT, null));
        RoundRobinProxy proxy = new RoundRobinProxy();
        List<AceReplica> replicas = List.of(new AceReplica("ace-a", cp, kubeconfig, REPLICA_PROPERTIES),
                new AceReplica("ace-b", cp, kubeconfig, REPLICA_PROPERTIES));
        for (AceReplica r : replicas) {
            proxy.addBackend(r.httpsPort());
            r.start();
        }
        for (AceReplica r : replicas) r.awaitReady(Duration.ofMinutes(4));
        AceInstall.applyWebhooks(cp, proxy.port());
        Kubelet kubelet = new Kubelet(cp.admin());
        RealCluster c = new RealCluster(cp, proxy, replicas, nodes, kubelet);
        Conditions.await("a replica holding the Lease", Duration.ofMinutes(2), () -> c.leader().isPresent());
        return c;
    }

    /** A TokenRequest token of ServiceAccount {@code ace-system/sa} (bound to {@code pod} when given: then it names the pod's node). */
    public static String token(KubernetesClient admin, String sa, io.fabric8.kubernetes.api.model.Pod pod) {
        TokenRequestBuilder b = new TokenRequestBuilder();
        var spec = b.withNewSpec().withExpirationSeconds(48L * 3600);
        if (pod != null) {
            spec = spec.withNewBoundObjectRef().withApiVersion("v1").withKind("Pod").withName(pod.getMetadata().getName())
                    .withUid(pod.getMetadata().getUid()).endBoundObjectRef();
        }
        TokenRequest r = admin.serviceAccounts().inNamespace(AceInstall.NAMESPACE).withName(sa).tokenRequest(spec.endSpec().build());
        return r.getStatus().getToken();
    }

    public ControlPlane controlPlane() { return controlPlane; }

    public KubernetesClient admin() { return controlPlane.admin(); }

    public List<AceReplica> replicas() { return replicas; }

    public RoundRobinProxy proxy() { return proxy; }

    public GpuNodes nodes() { return nodes; }

    public Kubelet kubelet() { return kubelet; }

    public Ledgers ledgers() { return ledgers; }

    /** The replica whose identity holds ACE's Lease ({@code ace-system/ace-binpacker}), if any. */
    public Optional<AceReplica> leader() {
        Lease l = admin().leases().inNamespace(AceInstall.NAMESPACE).withName("ace-binpacker").get();
        if (l == null || l.getSpec() == null || l.getSpec().getHolderIdentity() == null) return Optional.empty();
        String holder = l.getSpec().getHolderIdentity();
        return replicas.stream().filter(r -> holder.startsWith(r.name() + "-") && r.alive()).findFirst();
    }

    /** A fresh namespace {@code prefix-xxxxxx} (labels as given), ready for pods (its default ServiceAccount exists). */
    public String createNamespace(String prefix, Map<String, String> labels) {
        String name = prefix + "-" + UUID.randomUUID().toString().substring(0, 6);
        admin().namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(name).withLabels(labels).endMetadata().build()).create();
        Conditions.await("ServiceAccount " + name + "/default", Duration.ofMinutes(1),
                () -> admin().serviceAccounts().inNamespace(name).withName("default").get() != null);
        return name;
    }

    /** Deletes a namespace and waits until it is gone (its pods deleted, ACE's entries for them released). */
    public void deleteNamespace(String name) {
        admin().namespaces().withName(name).delete();
        Conditions.await("namespace " + name + " gone", Duration.ofMinutes(3), () -> admin().namespaces().withName(name).get() == null);
    }
}
