package dev.ace.binpacker.cluster;

import dev.ace.binpacker.admission.PendingDemand;
import dev.ace.binpacker.admission.ReviewCodec;
import dev.ace.binpacker.cluster.node.NodeListLoader;
import dev.ace.binpacker.cluster.node.NodeMapper;
import dev.ace.binpacker.cluster.pod.Fabric8PodApi;
import dev.ace.binpacker.cluster.view.NamespaceWatch;
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
import org.jboss.logging.Logger;

/**
 * At startup: load the standalone inventory, or (in-cluster) start {@link InCluster}: the ledger
 * objects as the shared store, the informers, the leader election and its reconciler. The Kubernetes
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
    @Inject
    ObservedDecisions observed;

    private InCluster cluster;

    void onStart(@Observes StartupEvent e) {
        LOG.info(modeChoice.logLine());
        if (mode == ClusterMode.STANDALONE) {
            List<NodeInfo> nodes = loadStandalone();
            LOG.infof("inventory: %d nodes from %s", nodes.size(), config.standalone().nodes().orElse("the embedded demo inventory"));
            return;
        }
        KubernetesClient client = ApiClient.of(clients.get().getConfiguration());
        KubernetesVersionCheck.verify(client, config.olderKubernetes());
        cluster = new InCluster(client, fleet, namespaces, pending, metrics, readiness, codec.mapper(),
                InCluster.Settings.of(config), InCluster.identity());
        cluster.start();
        observed.events(new Fabric8PodApi(client));
    }

    void onStop(@Observes ShutdownEvent e) {
        if (cluster != null) cluster.close();
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
