package dev.ace.binpacker.cluster;

import dev.ace.binpacker.admission.PendingDemand;
import dev.ace.binpacker.admission.ReviewCodec;
import dev.ace.binpacker.observability.Metrics;
import dev.ace.binpacker.observability.Readiness;
import dev.ace.binpacker.placement.NodeInfo;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;

/**
 * At startup: load the standalone inventory, or (in-cluster) share reservations through the ledger
 * ConfigMaps, start the informers and expire pending reservations periodically. The Kubernetes
 * client is only created in-cluster, so standalone never fails for want of an API server.
 */
@ApplicationScoped
public class ClusterBootstrap {
    private static final Logger LOG = Logger.getLogger(ClusterBootstrap.class);

    @Inject
    AceConfig config;
    @Inject
    ClusterMode mode;
    @Inject
    ClusterMode.Choice modeChoice;
    @Inject
    Fleet fleet;
    @Inject
    Instance<KubernetesClient> clients;
    @Inject
    NamespaceWatch namespaces;
    @Inject
    PendingDemand pending;
    @Inject
    Metrics metrics;
    @Inject
    Readiness readiness;
    @Inject
    ReviewCodec codec;

    private ClusterWatch watch;
    private ScheduledExecutorService expiry;

    void onStart(@Observes StartupEvent e) {
        LOG.info(modeChoice.logLine());
        if (mode == ClusterMode.STANDALONE) {
            List<NodeInfo> nodes = loadStandalone();
            LOG.infof("inventory: %d nodes from %s", nodes.size(), config.standalone().nodes().orElse("the embedded demo inventory"));
            return;
        }
        KubernetesClient client = clients.get();
        KubernetesVersionCheck.verify(client, config.olderKubernetes());
        fleet.useStore(new ConfigMapReservationStore(client, config.reservations().ledgerNamespace()));
        fleet.load(List.of());
        watch = new ClusterWatch(client, fleet, namespaces, pending, metrics, readiness, codec.mapper(), System::currentTimeMillis);
        // Informers sync off the startup thread: the probes report not-ready until they have.
        Thread starter = new Thread(() -> {
            try {
                watch.start();
            } catch (RuntimeException ex) {
                LOG.error("informers failed to start; readiness stays down", ex);
            }
        }, "ace-informers");
        starter.setDaemon(true);
        starter.start();
        long ttl = config.reservations().pendingTtl().toMillis();
        long every = config.reservations().expiryInterval().toMillis();
        expiry = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "ace-reservation-expiry");
            t.setDaemon(true);
            return t;
        });
        expiry.scheduleWithFixedDelay(() -> watch.expire(ttl), every, every, TimeUnit.MILLISECONDS);
    }

    void onStop(@Observes ShutdownEvent e) {
        if (expiry != null) expiry.shutdownNow();
        if (watch != null) watch.close();
    }

    /** Reads the configured node file (or the demo inventory) into a fresh allocator. Tests call it to start from a clean state. */
    public List<NodeInfo> loadStandalone() {
        try {
            List<Node> nodes = config.standalone().nodes().isPresent()
                    ? NodeListLoader.load(Path.of(config.standalone().nodes().get()))
                    : NodeListLoader.demo();
            NodeMapper mapper = NodeMapper.standard();
            List<NodeInfo> infos = nodes.stream().map(mapper::map).toList();
            fleet.load(infos);
            return infos;
        } catch (IOException ex) {
            throw new UncheckedIOException("cannot load the standalone node inventory: " + ex.getMessage(), ex);
        }
    }
}
