package dev.ace.binpacker.web;

import java.net.Socket;
import java.security.KeyStore;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * The mutual-TLS trust store ({@code ace.tls.client-ca}), swapped in place when the CA file changes, for
 * the same reason as {@link SwappingKeyManager}: the HTTPS server's SSL options never change after start.
 * Each check reads the current delegate once, so it runs against one CA set whole.
 */
final class SwappingTrustManager extends X509ExtendedTrustManager {
    private final AtomicReference<X509ExtendedTrustManager> delegate;

    SwappingTrustManager(List<X509Certificate> cas) throws ServingPair.Invalid {
        delegate = new AtomicReference<>(of(cas));
    }

    /** Trusts {@code cas} from now on. */
    void swap(List<X509Certificate> cas) throws ServingPair.Invalid {
        delegate.set(of(cas));
    }

    /** The JDK's PKIX trust manager over exactly {@code cas}. */
    static X509ExtendedTrustManager of(List<X509Certificate> cas) throws ServingPair.Invalid {
        if (cas.isEmpty()) throw new ServingPair.Invalid("no certificate in the client CA file");
        try {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            for (int i = 0; i < cas.size(); i++) store.setCertificateEntry("client-ca-" + i, cas.get(i));
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(store);
            for (TrustManager tm : tmf.getTrustManagers()) {
                if (tm instanceof X509ExtendedTrustManager x) return x;
            }
            throw new ServingPair.Invalid("the JDK offers no X509ExtendedTrustManager");
        } catch (ServingPair.Invalid e) {
            throw e;
        } catch (Exception e) {
            throw new ServingPair.Invalid("cannot build a trust store from the client CA file: " + e.getMessage());
        }
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
        delegate.get().checkClientTrusted(chain, authType, socket);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
        delegate.get().checkClientTrusted(chain, authType, engine);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        delegate.get().checkClientTrusted(chain, authType);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
        delegate.get().checkServerTrusted(chain, authType, socket);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
        delegate.get().checkServerTrusted(chain, authType, engine);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        delegate.get().checkServerTrusted(chain, authType);
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() { return delegate.get().getAcceptedIssuers(); }
}
