package dev.ace.binpacker.cluster;

import dev.ace.binpacker.admission.DecisionLog;
import dev.ace.binpacker.cluster.pod.PodApi;
import dev.ace.binpacker.cluster.pod.PodFacts;
import jakarta.inject.Singleton;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;

/**
 * Decisions of namespaces in mode {@code observe}: a log line always, and in-cluster a Warning or Normal
 * Event on the pod (by name: {@code kubectl get events -n NS} shows it beside the pod's own). Events are
 * written off the request path by one thread with a bounded queue; when the queue is full the Event is
 * dropped (the log line and the metric still count it), so a flood of pods never slows admission.
 */
@Singleton
public class ObservedDecisions implements DecisionLog {
    private static final Logger LOG = Logger.getLogger(ObservedDecisions.class);
    static final String REASON = "AceWouldDecide";

    private volatile PodApi api;
    private final ThreadPoolExecutor writer = new ThreadPoolExecutor(1, 1, 30, TimeUnit.SECONDS, new ArrayBlockingQueue<>(256),
            r -> {
                Thread t = new Thread(r, "ace-observed-events");
                t.setDaemon(true);
                return t;
            }, new ThreadPoolExecutor.DiscardPolicy());

    /** In-cluster: where Events go. */
    void events(PodApi api) { this.api = api; }

    @Override
    public void observed(String namespace, String pod, String result, String text) {
        LOG.infof("observe %s/%s: %s", namespace, pod, text);
        PodApi a = api;
        if (a == null || pod == null || pod.isEmpty()) return;
        String name = pod.endsWith("*") ? pod.substring(0, pod.length() - 1) : pod;
        String type = result.equals("denied") ? "Warning" : "Normal";
        writer.execute(() -> {
            try {
                a.event(PodFacts.named(namespace, name, null), type, REASON, text.length() > 1000 ? text.substring(0, 997) + "..." : text);
            } catch (RuntimeException e) {
                LOG.debugf("could not record the observed decision for %s/%s: %s", namespace, name, e.getMessage());
            }
        });
    }
}
