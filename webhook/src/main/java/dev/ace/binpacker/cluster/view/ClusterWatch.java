package dev.ace.binpacker.cluster.view;

import dev.ace.binpacker.cluster.ledger.CrdLedgerStore;
import dev.ace.binpacker.cluster.ledger.LedgerDoc;
import dev.ace.binpacker.cluster.report.NodeReportStore;
import dev.ace.binpacker.observability.Readiness;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.jboss.logging.Logger;

/**
 * The fabric8 edge of {@link LocalView}: Namespace, Node, GpuNodeReport, GpuLedger, ResourceClaim and Pod informers, started
 * in dependency order (nodes and their reports before the ledger entries and pods that hold their GPUs). fabric8 runs
 * handlers asynchronously after {@code inform()} returns, so each informer's initial list is
 * processed here, from its store, before its readiness component goes up (the handlers are
 * idempotent: the same events arriving later change nothing). A start that fails, or an informer
 * that stops later, closes them all and starts again with backoff, for ever, with the last error on
 * the readiness probe.
 */
public final class ClusterWatch implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(ClusterWatch.class);
    public static final String NAMESPACES = "namespaces";
    public static final String NODES = "nodes";
    public static final String REPORTS = "reports";
    public static final String LEDGER = "ledger";
    public static final String CLAIMS = "claims";
    public static final String PODS = "pods";
    public static final List<String> COMPONENTS = List.of(NAMESPACES, NODES, REPORTS, LEDGER, CLAIMS, PODS);

    private final KubernetesClient client;
    private final CrdLedgerStore ledger;
    private final NodeReportStore reports;
    private final LocalView view;
    private final NamespaceWatch namespaces;
    private final Readiness readiness;
    private final Backoff backoff;
    private final List<SharedIndexInformer<?>> informers = new ArrayList<>();
    private volatile boolean closed;
    /** The ResourceClaim API was found absent (or not granted) once: said in the log once, not at every restart. */
    private volatile boolean claimsAbsentSaid;
    private volatile CompletableFuture<Throwable> current = new CompletableFuture<>();

    public ClusterWatch(KubernetesClient client, CrdLedgerStore ledger, LocalView view, NamespaceWatch namespaces,
                        Readiness readiness, Backoff backoff) {
        this.client = client;
        this.ledger = ledger;
        this.reports = new NodeReportStore(client);
        this.view = view;
        this.namespaces = namespaces;
        this.readiness = readiness;
        this.backoff = backoff;
        COMPONENTS.forEach(readiness::expect);
    }

    /** True once every informer's initial list is processed: the ledger and the gated queue are rebuilt. */
    public boolean synced() { return COMPONENTS.stream().allMatch(readiness::isReady); }

    /**
     * Starts the informers and keeps them running: a start that fails, and an informer that stops later
     * (its watch could not be resumed), close them all and start again after a backoff, for ever, with
     * readiness down meanwhile. Blocks: run it on its own thread.
     */
    public void run() {
        for (int attempt = 0; !closed; attempt++) {
            CompletableFuture<Throwable> stopped = new CompletableFuture<>();
            current = stopped;
            try {
                startOnce(stopped);
                LOG.infof("informers synced: %d nodes, %d ledger entries, %d pods, %d gated", view.nodeNames().size(),
                        view.allocator().ledger().size(), view.pods().size(), view.pending().size());
                attempt = 0;
                Throwable why = stopped.join();
                if (closed) return;
                throw new IllegalStateException("an informer stopped: " + (why == null ? "unknown" : why.getMessage()), why);
            } catch (RuntimeException e) {
                if (closed) return;
                String component = COMPONENTS.stream().filter(c -> !readiness.isReady(c)).findFirst().orElse(PODS);
                closeInformers();
                COMPONENTS.forEach(c -> readiness.ready(c, false));
                readiness.failed(component, e.getMessage());
                long wait = backoff.delayMillis(attempt);
                LOG.warnf("informers down (%s); starting them again in %d ms", e.getMessage(), wait);
                if (!backoff.sleep(wait)) return;
            }
        }
    }

    private void startOnce(CompletableFuture<Throwable> stopped) {
        SharedIndexInformer<Namespace> ns = add(client.namespaces().inform(handler(namespaces::upsert, namespaces::remove)), stopped);
        ns.getStore().list().forEach(namespaces::upsert);
        readiness.ready(NAMESPACES, true);
        SharedIndexInformer<Node> nodes = add(client.nodes().inform(handler(view::nodeChanged, n -> view.nodeGone(n.getMetadata().getName()))), stopped);
        List<Node> nodeList = nodes.getStore().list();
        nodeList.forEach(view::nodeChanged);
        readiness.ready(NODES, true);
        SharedIndexInformer<GenericKubernetesResource> reportObjects = add(reports.objects().inform(handler(
                r -> report(r, NodeReportStore.specText(r)), r -> report(r, null))), stopped);
        List<GenericKubernetesResource> reportList = reportObjects.getStore().list();
        reportList.forEach(r -> report(r, NodeReportStore.specText(r)));
        Set<String> reported = reportList.stream().map(NodeReportStore::node).filter(java.util.Objects::nonNull).collect(Collectors.toSet());
        view.reportNodes().stream().filter(n -> !reported.contains(n)).forEach(n -> view.reportChanged(n, null));
        readiness.ready(REPORTS, true);
        SharedIndexInformer<GenericKubernetesResource> docs = add(ledger.objects().inform(handler(
                r -> view.ledgerChanged(ledger.codec().read(r)), r -> view.ledgerGone(r.getMetadata().getName()))), stopped);
        List<LedgerDoc> docList = docs.getStore().list().stream().map(ledger.codec()::read).toList();
        docList.forEach(view::ledgerChanged);
        readiness.ready(LEDGER, true);
        startClaims(stopped);
        readiness.ready(CLAIMS, true);
        SharedIndexInformer<Pod> pods = add(client.pods().inAnyNamespace().inform(handler(view::podChanged,
                p -> view.podGone(p.getMetadata().getUid()))), stopped);
        List<Pod> podList = pods.getStore().list();
        podList.forEach(view::podChanged);
        // Informers restarted after a failure: what was deleted while nobody watched is in no list.
        view.retain(names(nodeList), docList.stream().map(LedgerDoc::node).collect(Collectors.toSet()),
                podList.stream().map(p -> p.getMetadata().getUid()).collect(Collectors.toSet()));
        view.nodeNames().forEach(view::refresh);
        readiness.ready(PODS, true);
    }

    /**
     * ResourceClaims ({@code resource.k8s.io/v1}, GA in Kubernetes 1.34): the GPUs of allocated claims count as held.
     * An API server that does not serve the API (older clusters, 404) or RBAC that does not grant list/watch on
     * resourceclaims (403, an install of an older chart) leaves ACE running without them, said once in the log.
     */
    private void startClaims(CompletableFuture<Throwable> stopped) {
        SharedIndexInformer<ResourceClaim> claims = client.resources(ResourceClaim.class).inAnyNamespace().runnableInformer(0);
        claims.addEventHandler(handler(view::claimChanged, c -> view.claimGone(c.getMetadata().getUid())));
        try {
            claims.run();
        } catch (RuntimeException e) {
            claims.close();
            int code = code(e);
            if (code != 404 && code != 403) throw e;
            if (!claimsAbsentSaid) {
                claimsAbsentSaid = true;
                LOG.warnf("ResourceClaims (resource.k8s.io/v1) cannot be listed (HTTP %d: %s); GPUs allocated through DRA are not"
                        + " counted. Kubernetes 1.34+ serves the API; ACE's ClusterRole needs list and watch on resourceclaims", code,
                        code == 404 ? "the API server does not serve them" : "forbidden");
            }
            view.retainClaims(Set.of());
            return;
        }
        add(claims, stopped);
        List<ResourceClaim> list = claims.getStore().list();
        list.forEach(view::claimChanged);
        view.retainClaims(list.stream().map(c -> c.getMetadata().getUid()).collect(Collectors.toSet()));
        LOG.infof("counting the GPUs of %d allocated ResourceClaims", view.claimsCounted());
    }

    /** The HTTP status of the first KubernetesClientException in a failure's causes, or 0. */
    private static int code(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof KubernetesClientException k && k.getCode() != 0) return k.getCode();
        }
        return 0;
    }

    /** A GpuNodeReport event; an object whose spec names another node than the object is ignored (and logged). */
    private void report(GenericKubernetesResource r, String text) {
        String node = NodeReportStore.node(r);
        if (node == null) {
            LOG.warnf("GpuNodeReport %s does not name itself in spec.node; ignored", r.getMetadata().getName());
            return;
        }
        view.reportChanged(node, text);
    }

    private static Set<String> names(List<Node> nodes) {
        return nodes.stream().map(n -> n.getMetadata().getName()).collect(Collectors.toSet());
    }

    private <T> SharedIndexInformer<T> add(SharedIndexInformer<T> informer, CompletableFuture<Throwable> stopped) {
        informers.add(informer);
        informer.stopped().whenComplete((v, t) -> stopped.complete(t));
        return informer;
    }

    private static <T> ResourceEventHandler<T> handler(Consumer<T> upsert, Consumer<T> delete) {
        return new ResourceEventHandler<>() {
            @Override public void onAdd(T obj) { guard(() -> upsert.accept(obj)); }
            @Override public void onUpdate(T oldObj, T newObj) { guard(() -> upsert.accept(newObj)); }
            @Override public void onDelete(T obj, boolean unknownFinalState) { guard(() -> delete.accept(obj)); }
        };
    }

    private static void guard(Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            LOG.error("informer event failed; state may lag until the next event", e);
        }
    }

    private void closeInformers() {
        informers.forEach(i -> {
            try {
                i.close();
            } catch (RuntimeException e) {
                LOG.debugf("closing an informer: %s", e.getMessage());
            }
        });
        informers.clear();
    }

    @Override
    public void close() {
        closed = true;
        current.complete(null);
        backoff.interrupt();
        closeInformers();
    }
}
