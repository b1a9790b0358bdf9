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
        // These loops only decode API responses: a long initial list (1,000 Nodes, on a loaded machine 2-20 s) delays
        // watch events here and nothing else, so Vert.x is told not to report it as a blocked loop.
        Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(2).setWorkerPoolSize(2).setUseDaemonThread(true)
                .setMaxEventLoopExecuteTime(60).setMaxEventLoopExecuteTimeUnit(java.util.concurrent.TimeUnit.SECONDS)
                .setWarningExceptionTime(60).setWarningExceptionTimeUnit(java.util.concurrent.TimeUnit.SECONDS));
        KubernetesClient client = new KubernetesClientBuilder().withConfig(config).withHttpClientFactory(new VertxHttpClientFactory(vertx)).build();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            client.close();
            vertx.close();
        }, "ace-api-client-close"));
        return client;
    }
}
