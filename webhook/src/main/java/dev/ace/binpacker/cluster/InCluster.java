package dev.ace.binpacker.cluster;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ace.binpacker.admission.PendingDemand;
import dev.ace.binpacker.cluster.controller.ControlLoop;
import dev.ace.binpacker.cluster.controller.CrdGroupStatusStore;
import dev.ace.binpacker.cluster.controller.Leadership;
import dev.ace.binpacker.cluster.controller.LeaseLeadership;
import dev.ace.binpacker.cluster.controller.Reconciler;
import dev.ace.binpacker.cluster.controller.ReconcilerConfig;
import dev.ace.binpacker.cluster.ledger.CrdLedgerStore;
import dev.ace.binpacker.cluster.ledger.SharedLedger;
import dev.ace.binpacker.cluster.pod.Fabric8PodApi;
import dev.ace.binpacker.cluster.view.Backoff;
import dev.ace.binpacker.cluster.view.ClaimGpus;
import dev.ace.binpacker.cluster.view.ClusterWatch;
import dev.ace.binpacker.cluster.view.LocalView;
import dev.ace.binpacker.cluster.view.NamespaceWatch;
import dev.ace.binpacker.cluster.view.NodeReports;
import dev.ace.binpacker.cluster.view.PodCache;
import dev.ace.binpacker.observability.Metrics;
import dev.ace.binpacker.observability.Readiness;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.jboss.logging.Logger;

/**
 * The in-cluster machinery wired together: the ledger objects as the shared store, the local view
 * fed by the informers, the leader election and the reconciler loop. Every replica answers
 * admissions against the local view and commits to the store; only the leader reconciles.
 */
public final class InCluster implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(InCluster.class);

    private final LocalView view;
    private final ClusterWatch watch;
    private final LeaseLeadership leadership;
    private final ControlLoop loop;
    private final Reconciler reconciler;

    /** Everything the controller is told by configuration. */
    public record Settings(String leaseNamespace, String leaseName, LeaseLeadership.Timing lease, Duration interval,
                           ReconcilerConfig reconcile, java.util.Set<String> draGpuDrivers) {
        public Settings(String leaseNamespace, String leaseName, LeaseLeadership.Timing lease, Duration interval, ReconcilerConfig reconcile) {
            this(leaseNamespace, leaseName, lease, interval, reconcile, ClaimGpus.DEFAULT_DRIVERS);
        }

        static Settings of(AceConfig c) {
            AceConfig.Controller k = c.controller();
            return new Settings(k.namespace(), k.leaseName(), new LeaseLeadership.Timing(k.leaseDuration(), k.renewDeadline(), k.retryPeriod()),
                    k.interval(), new ReconcilerConfig(c.reservations().pendingTtl().toMillis(), k.absentGrace().toMillis(),
                    k.stuckGrace().toMillis(), k.emptyReportGrace().toMillis(), k.tieDelay().toMillis(), k.resync().toMillis()),
                    c.dra().gpuDrivers());
        }
    }

    public InCluster(KubernetesClient client, Fleet fleet, NamespaceWatch namespaces, PendingDemand pending, Metrics metrics,
                     Readiness readiness, ObjectMapper json, Settings s, String identity) {
        view = new LocalView(fleet::allocator, new PodCache(), pending, metrics, json,
                new NodeReports(s.reconcile().emptyReportGraceMillis(), () -> System.nanoTime() / 1_000_000));
        view.countClaimsOf(s.draGpuDrivers());
        CrdLedgerStore crd = new CrdLedgerStore(client, json);
        SharedLedger shared = new SharedLedger(crd, view::capacity, metrics::ledgerConflict);
        view.onLedger(shared::seen, shared::gone);
        fleet.useSightings(view::podSeen);
        fleet.useStore(shared);
        fleet.load(List.of());
        reconciler = new Reconciler(view, shared, new Fabric8PodApi(client), new CrdGroupStatusStore(client), metrics, json, s.reconcile(),
                () -> System.nanoTime() / 1_000_000, System::currentTimeMillis);
        watch = new ClusterWatch(client, crd, view, namespaces, readiness, new Backoff(1_000, 60_000));
        ControlLoop[] l = new ControlLoop[1];
        leadership = new LeaseLeadership(client, s.leaseNamespace(), s.leaseName(), identity, s.lease(), () -> {
            reconciler.leadershipChanged();
            if (l[0] != null) l[0].wake();
        });
        loop = new ControlLoop(reconciler, leadership, watch::synced, s.interval());
        l[0] = loop;
        view.onChange(loop::wake);
    }

    /** A Lease identity unique per process: the pod name when Kubernetes set it, plus a random suffix for restarts. */
    public static String identity() {
        String host = System.getenv().getOrDefault("HOSTNAME", "ace");
        return host + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    public void start() {
        // Informers sync off the startup thread; readiness stays down (with the last error) until they have.
        Thread starter = new Thread(watch::run, "ace-informers");
        starter.setDaemon(true);
        starter.start();
        leadership.start();
        loop.start();
        LOG.infof("in-cluster controller started as %s", leadership.identity());
    }

    public LocalView view() { return view; }

    public Leadership leadership() { return leadership; }

    public Reconciler reconciler() { return reconciler; }

    @Override
    public void close() {
        loop.close();
        leadership.close();
        watch.close();
    }
}
