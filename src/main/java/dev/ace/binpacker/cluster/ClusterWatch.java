package dev.ace.binpacker.cluster;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ace.binpacker.admission.GateRelease;
import dev.ace.binpacker.admission.PendingDemand;
import dev.ace.binpacker.admission.ReservationJson;
import dev.ace.binpacker.observability.Metrics;
import dev.ace.binpacker.observability.Readiness;
import dev.ace.binpacker.placement.Allocator;
import dev.ace.binpacker.placement.Ledger;
import dev.ace.binpacker.placement.PlacementRequest;
import dev.ace.binpacker.placement.Reservation;
import dev.ace.binpacker.workload.AceKeys;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.jboss.logging.Logger;

/**
 * In-cluster state: Node, Namespace and Pod informers feed the allocator. Pods are the durable
 * record (DESIGN "State lives in Kubernetes"): at start the ledger is rebuilt from their
 * {@code ace.dev/reservation} annotations; a reservation is confirmed when its pod shows up and
 * released when the pod terminates or goes away, and gated pods wait in {@link PendingDemand}
 * until a release frees a clique for them. Readiness is up once every informer has synced.
 */
public final class ClusterWatch implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(ClusterWatch.class);
    public static final List<String> INFORMERS = List.of("informer-namespaces", "informer-nodes", "informer-pods");

    private final KubernetesClient client;
    private final Fleet fleet;
    private final NamespaceWatch namespaces;
    private final PendingDemand pending;
    private final Metrics metrics;
    private final Readiness readiness;
    private final ObjectMapper json;
    private final LongSupplier clock;
    private final NodeMapper mapper = NodeMapper.standard();
    private final List<SharedIndexInformer<?>> informers = new ArrayList<>();

    public ClusterWatch(KubernetesClient client, Fleet fleet, NamespaceWatch namespaces, PendingDemand pending, Metrics metrics,
                        Readiness readiness, ObjectMapper json, LongSupplier clock) {
        this.client = client;
        this.fleet = fleet;
        this.namespaces = namespaces;
        this.pending = pending;
        this.metrics = metrics;
        this.readiness = readiness;
        this.json = json;
        this.clock = clock;
    }

    /** Starts the informers in dependency order (nodes before the pods that hold their GPUs); each inform() returns once synced. */
    public void start() {
        INFORMERS.forEach(readiness::expect);
        informers.add(client.namespaces().inform(handler(namespaces::upsert, namespaces::remove)));
        readiness.ready(INFORMERS.get(0), true);
        informers.add(client.nodes().inform(handler(this::nodeChanged, this::nodeGone)));
        readiness.ready(INFORMERS.get(1), true);
        informers.add(client.pods().inAnyNamespace().inform(handler(this::podChanged, this::podGone)));
        readiness.ready(INFORMERS.get(2), true);
        LOG.infof("informers synced: %d nodes, %d reservations rebuilt from pods, %d pods gated",
                fleet.allocator().state().liveNodes(), fleet.allocator().ledger().size(), pending.size());
    }

    /** Releases pending reservations whose pod never appeared; called periodically. */
    public void expire(long ttlMillis) {
        List<Reservation> gone = fleet.allocator().expirePending(clock.getAsLong(), ttlMillis);
        gone.forEach(r -> metrics.reservationExpired());
        if (!gone.isEmpty()) releaseGated();
    }

    private <T> ResourceEventHandler<T> handler(Consumer<T> upsert, Consumer<T> delete) {
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

    void nodeChanged(Node node) {
        var info = mapper.map(node);
        fleet.allocator().read(a -> a.state().upsert(info));
        releaseGated();
    }

    void nodeGone(Node node) {
        String name = node.getMetadata().getName();
        Allocator a = fleet.allocator();
        List<String> held = a.read(al -> al.ledger().all().stream().filter(r -> r.node().equals(name)).map(Reservation::id).toList());
        held.forEach(a::release);
        a.read(al -> al.state().remove(name));
    }

    void podChanged(Pod pod) {
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        if ("Succeeded".equals(phase) || "Failed".equals(phase)) {
            podGone(pod);
            return;
        }
        String key = key(pod);
        if (GateRelease.isGated(pod)) {
            if (pending.waiting().stream().noneMatch(w -> w.id().equals(key))) {
                try {
                    PlacementRequest r = fleet.allocator().read(a -> {
                        try {
                            return GateRelease.waitingFor(pod, key, a);
                        } catch (dev.ace.binpacker.workload.InvalidPodException e) {
                            throw new IllegalArgumentException(e.getMessage(), e);
                        }
                    });
                    Integer prio = pod.getSpec().getPriority();
                    pending.add(new PendingDemand.Waiting(key, key, r, prio == null ? 0 : prio, created(pod)));
                    releaseGated();
                } catch (IllegalArgumentException e) {
                    LOG.warnf("gated pod %s cannot be placed by ACE: %s", key, e.getMessage());
                }
            }
            return;
        }
        pending.remove(key);
        reservationOf(pod).ifPresent(r -> {
            Allocator a = fleet.allocator();
            if (a.reservation(r.id()).isEmpty()) {
                Ledger.Outcome o = a.adopt(r);
                if (o == Ledger.Outcome.CONFLICT) {
                    metrics.ledgerConflict();
                    LOG.warnf("pod %s holds %s, which overlaps another reservation", key, r);
                }
            }
            a.confirm(r.id());
        });
    }

    void podGone(Pod pod) {
        pending.remove(key(pod));
        reservationOf(pod).ifPresent(r -> {
            if (fleet.allocator().release(r.id()).isPresent()) releaseGated();
        });
    }

    /** Gives freed GPUs to waiting pods, oldest of the highest priority first, and patches each released pod. */
    void releaseGated() {
        while (true) {
            Optional<PendingDemand.Released> next = pending.releaseNext(fleet.allocator(), clock.getAsLong());
            if (next.isEmpty()) return;
            Reservation r = next.get().outcome().reservation();
            String[] nsName = next.get().waiting().podKey().split("/", 2);
            try {
                client.pods().inNamespace(nsName[0]).withName(nsName[1]).edit(p -> {
                    GateRelease.release(p, r, json);
                    return p;
                });
                LOG.infof("released %s onto %s GPUs %s", next.get().waiting().podKey(), r.node(), java.util.Arrays.toString(r.gpus()));
            } catch (RuntimeException e) {
                fleet.allocator().release(r.id());
                LOG.warnf("could not release gated pod %s: %s", next.get().waiting().podKey(), e.getMessage());
            }
        }
    }

    private Optional<Reservation> reservationOf(Pod pod) {
        Map<String, String> a = pod.getMetadata().getAnnotations();
        return a == null ? Optional.empty() : ReservationJson.read(json, a.get(AceKeys.RESERVATION), created(pod));
    }

    private static long created(Pod pod) {
        String ts = pod.getMetadata().getCreationTimestamp();
        try {
            return ts == null ? System.currentTimeMillis() : Instant.parse(ts).toEpochMilli();
        } catch (RuntimeException e) {
            return System.currentTimeMillis();
        }
    }

    private static String key(Pod pod) { return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName(); }

    @Override
    public void close() { informers.forEach(SharedIndexInformer::close); }
}
