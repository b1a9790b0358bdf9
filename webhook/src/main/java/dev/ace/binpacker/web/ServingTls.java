package dev.ace.binpacker.web;

import dev.ace.binpacker.cluster.AceConfig;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.vertx.http.HttpServerOptionsCustomizer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.KeyCertOptions;
import io.vertx.core.net.TrustOptions;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;
import org.jboss.logging.Logger;

/**
 * Serves the webhook port's certificate (and, with mutual TLS, trusts the client CA) through key and
 * trust managers ACE swaps itself when the mounted files change (issue 21), instead of the TLS registry's
 * periodic reload: that reload hands new SSL options to the running HTTPS server, and Vert.x 4.5.27's
 * {@code updateSSLOptions} closes connections that arrive meanwhile in their handshake. Here the server's
 * SSL options are set once, before it starts, and never change.
 *
 * <p>The files are the ones users already configure, {@code quarkus.tls.webhook.key-store.pem.0.cert/key}
 * (or the self-signed pair {@link SelfSignedTlsConfigSourceFactory} generates) and {@code ace.tls.client-ca};
 * the registry still reads them once at start, so a bad file fails the start as before. They are re-read
 * every {@code ace.tls.reload-period} (10 s); a new pair is checked whole before it is served.
 */
@ApplicationScoped
public class ServingTls implements HttpServerOptionsCustomizer {
    private static final Logger LOG = Logger.getLogger(ServingTls.class);
    static final String RELOAD_PERIOD = "ace.tls.reload-period";
    /** The TLS registry's own reload of the {@code webhook} configuration: it would bring the handshake failures back. */
    static final String REGISTRY_RELOAD = "quarkus.tls.webhook.reload-period";

    @Inject
    AceConfig ace;

    private final List<PemFileWatch> watches = new java.util.concurrent.CopyOnWriteArrayList<>();
    private ScheduledExecutorService reloader;

    @Override
    public synchronized void customizeHttpsServer(HttpServerOptions options) {
        watches.clear();
        Config config = ConfigProvider.getConfig();
        Optional<Path> cert = config.getOptionalValue(SelfSignedTlsConfigSourceFactory.CERT, String.class).map(Path::of);
        Optional<Path> key = config.getOptionalValue(SelfSignedTlsConfigSourceFactory.KEY, String.class).map(Path::of);
        if (cert.isEmpty() || key.isEmpty()) return; // no PEM pair configured: the TLS registry's settings stand as they are
        if (config.getOptionalValue(REGISTRY_RELOAD, String.class).isPresent()) {
            LOG.warnf("%s is set: the TLS registry will hand reloaded certificates to the HTTPS server, which drops handshakes "
                    + "while it switches; remove it, ACE re-reads the files itself (%s)", REGISTRY_RELOAD, RELOAD_PERIOD);
        }
        List<Path> pairFiles = List.of(cert.get(), key.get());
        List<byte[]> pem = readAtStart(pairFiles);
        ServingPair first = parseAtStart(pem, pairFiles);
        SwappingKeyManager keys = new SwappingKeyManager(first);
        options.setKeyCertOptions(KeyCertOptions.wrap(keys));
        watches.add(new PemFileWatch("serving certificate", pairFiles, pem, c -> {
            ServingPair next = ServingPair.parse(c.get(0), c.get(1));
            keys.swap(next);
            return next.describe();
        }));
        LOG.infof("serving certificate %s from %s", first.describe(), cert.get());

        Optional<Path> clientCa = MutualTls.clientCa().map(Path::of);
        if (clientCa.isPresent()) {
            List<Path> caFiles = List.of(clientCa.get());
            List<byte[]> caPem = readAtStart(caFiles);
            try {
                SwappingTrustManager trust = new SwappingTrustManager(ServingPair.certificates(caPem.get(0)));
                options.setTrustOptions(TrustOptions.wrap(trust));
                watches.add(new PemFileWatch("client CA", caFiles, caPem, c -> {
                    var cas = ServingPair.certificates(c.get(0));
                    trust.swap(cas);
                    return cas.size() + " certificate(s), first " + cas.get(0).getSubjectX500Principal().getName();
                }));
            } catch (ServingPair.Invalid e) {
                throw new IllegalStateException(MutualTls.CLIENT_CA + " " + clientCa.get() + ": " + e.getMessage(), e);
            }
        }
        start(ace.tls().reloadPeriod());
    }

    private void start(Duration period) {
        if (reloader != null) reloader.shutdownNow();
        reloader = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "ace-tls-reload");
            t.setDaemon(true);
            return t;
        });
        long ms = Math.max(1, period.toMillis());
        reloader.scheduleWithFixedDelay(this::checkAll, ms, ms, TimeUnit.MILLISECONDS);
    }

    /** One re-read of every watched file set; never throws (a thrown task would end the schedule). */
    void checkAll() {
        for (PemFileWatch w : watches) {
            try {
                w.check();
            } catch (RuntimeException e) {
                LOG.warnf(e, "re-reading TLS files failed; the current certificates stay");
            }
        }
    }

    synchronized void stop(@Observes ShutdownEvent e) {
        if (reloader != null) reloader.shutdownNow();
        reloader = null;
    }

    private static List<byte[]> readAtStart(List<Path> files) {
        try {
            return PemFileWatch.read(files);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read TLS files: " + e.getMessage(), e);
        }
    }

    private static ServingPair parseAtStart(List<byte[]> pem, List<Path> files) {
        try {
            return ServingPair.parse(pem.get(0), pem.get(1));
        } catch (ServingPair.Invalid e) {
            throw new IllegalStateException("serving certificate " + files + ": " + e.getMessage(), e);
        }
    }
}
