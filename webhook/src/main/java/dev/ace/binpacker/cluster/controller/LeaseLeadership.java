package dev.ace.binpacker.cluster.controller;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfig;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jboss.logging.Logger;

/**
 * Leadership through fabric8's LeaderElector on a {@code coordination.k8s.io} Lease. A leader that
 * cannot renew within the renew deadline (shorter than the lease) stops leading before anyone else
 * may take the Lease; an elector is single-use, so after a loss a new one campaigns again.
 */
public final class LeaseLeadership implements Leadership, AutoCloseable {
    private static final Logger LOG = Logger.getLogger(LeaseLeadership.class);

    /** Lease timing; client-go's defaults are 15 s, 10 s and 2 s. */
    public record Timing(Duration lease, Duration renewDeadline, Duration retry) {
        public static final Timing DEFAULTS = new Timing(Duration.ofSeconds(15), Duration.ofSeconds(10), Duration.ofSeconds(2));
    }

    private final KubernetesClient client;
    private final String namespace;
    private final String name;
    private final String identity;
    private final Timing timing;
    private final Runnable onChange;
    private final AtomicBoolean leading = new AtomicBoolean();
    private final ScheduledExecutorService retry = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "ace-leader-election");
        t.setDaemon(true);
        return t;
    });
    private volatile boolean closed;
    private volatile CompletableFuture<?> campaign;

    /** @param onChange told on every gain and loss (the reconciler forgets its ages, the loop wakes) */
    public LeaseLeadership(KubernetesClient client, String namespace, String name, String identity, Timing timing, Runnable onChange) {
        this.client = client;
        this.namespace = namespace;
        this.name = name;
        this.identity = identity;
        this.timing = timing;
        this.onChange = onChange;
    }

    public String identity() { return identity; }

    @Override
    public boolean leading() { return leading.get(); }

    public void start() { retry.execute(this::campaign); }

    private void campaign() {
        if (closed) return;
        try {
            LeaderElectionConfig config = new LeaderElectionConfig(new LeaseLock(namespace, name, identity), timing.lease(),
                    timing.renewDeadline(), timing.retry(), new LeaderCallbacks(this::started, this::stopped, leader -> { }),
                    false, name); // released by close(), not by fabric8: its failed release during an outage logs ERROR with a stack
            campaign = client.leaderElector().withConfig(config).build().start();
            campaign.whenComplete((v, t) -> {
                stopped();
                if (!closed) retry.schedule(this::campaign, timing.retry().toMillis(), TimeUnit.MILLISECONDS);
            });
        } catch (RuntimeException e) {
            LOG.warnf("leader election could not start: %s; trying again", e.getMessage());
            retry.schedule(this::campaign, timing.retry().toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    private void started() {
        if (leading.compareAndSet(false, true)) {
            LOG.infof("%s leads (Lease %s/%s)", identity, namespace, name);
            onChange.run();
        }
    }

    private void stopped() {
        if (leading.compareAndSet(true, false)) {
            LOG.infof("%s no longer leads (Lease %s/%s)", identity, namespace, name);
            onChange.run();
        }
    }

    @Override
    public void close() {
        closed = true;
        boolean wasLeading = leading.getAndSet(false);
        CompletableFuture<?> c = campaign;
        if (c != null) c.cancel(true);
        retry.shutdownNow();
        if (wasLeading) release();
    }

    /**
     * Hands the Lease back on shutdown so another replica leads within a second, not after the lease duration
     * (client-go's ReleaseOnCancel: no holder, a one-second lease). When the API server does not answer (an
     * outage, the usual reason a leader stops) the Lease simply expires: expected, so a warning, not an error.
     */
    private void release() {
        try {
            client.leases().inNamespace(namespace).withName(name).edit(l -> {
                if (l.getSpec() == null || !identity.equals(l.getSpec().getHolderIdentity())) return l;
                l.getSpec().setHolderIdentity("");
                l.getSpec().setLeaseDurationSeconds(1);
                l.getSpec().setRenewTime(java.time.ZonedDateTime.now(java.time.ZoneOffset.UTC));
                return l;
            });
            LOG.infof("%s released Lease %s/%s", identity, namespace, name);
        } catch (RuntimeException e) {
            LOG.warnf("%s could not release Lease %s/%s (%s); it expires after %d s", identity, namespace, name, e.getMessage(),
                    timing.lease().toSeconds());
        }
    }
}
