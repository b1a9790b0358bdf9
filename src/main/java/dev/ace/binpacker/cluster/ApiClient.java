package dev.ace.binpacker.cluster;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.vertx.VertxHttpClientFactory;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;

/**
 * The Kubernetes client ACE's informers, ledger writes and Lease use, on Vert.x event loops of its own.
 * Quarkus' client shares the HTTPS server's event loops, and fabric8 decodes every response there: on a
 * real API server with 1,000 nodes the informers' initial lists blocked the loops that answer admissions
 * for 2-8 s at start (BlockedThreadChecker stacks in Reflector.processList and KubernetesSerialization.unmarshal),
 * and every watch event and ledger response of a burst queued in front of the API server's webhook calls.
 */
final class ApiClient {
    private ApiClient() {}

    /** A client with {@code config} (the one Quarkus built from the kubeconfig or the pod's service account). */
    static KubernetesClient of(Config config) {
        Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(2).setWorkerPoolSize(2).setUseDaemonThread(true));
        KubernetesClient client = new KubernetesClientBuilder().withConfig(config).withHttpClientFactory(new VertxHttpClientFactory(vertx)).build();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            client.close();
            vertx.close();
        }, "ace-api-client-close"));
        return client;
    }
}
