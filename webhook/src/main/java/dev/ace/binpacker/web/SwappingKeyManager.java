package dev.ace.binpacker.web;

import java.net.Socket;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;

/**
 * The HTTPS server's key material, swapped in place when the mounted Secret rotates (issue 21). The
 * server's SSL options never change after start, so Vert.x never rebuilds its SSL context (its
 * {@code updateSSLOptions} closed new connections mid-handshake); the JDK engine asks this key manager
 * on every handshake instead. A handshake picks an alias, then asks for that alias's key and chain: the
 * alias names the pair's generation and the previous pair stays reachable, so a handshake that straddles
 * a swap still gets one pair whole, never the new key with the old chain.
 */
final class SwappingKeyManager extends X509ExtendedKeyManager {
    private static final String PREFIX = "ace-serving-";

    private record Slots(long generation, ServingPair current, ServingPair previous) {}

    private final AtomicReference<Slots> slots;

    SwappingKeyManager(ServingPair first) {
        slots = new AtomicReference<>(new Slots(0, first, null));
    }

    /** Serves {@code next} to every handshake from now on; one already past choosing an alias finishes with the old pair. */
    void swap(ServingPair next) {
        slots.updateAndGet(s -> new Slots(s.generation() + 1, next, s.current()));
    }

    ServingPair current() { return slots.get().current(); }

    private String choose(String keyType) {
        Slots s = slots.get();
        return keyType != null && keyType.equalsIgnoreCase(s.current().key().getAlgorithm()) ? PREFIX + s.generation() : null;
    }

    private ServingPair pair(String alias) {
        if (alias == null || !alias.startsWith(PREFIX)) return null;
        long generation;
        try {
            generation = Long.parseLong(alias.substring(PREFIX.length()));
        } catch (NumberFormatException e) {
            return null;
        }
        Slots s = slots.get();
        if (generation == s.generation()) return s.current();
        if (generation == s.generation() - 1) return s.previous();
        return null;
    }

    @Override
    public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) { return choose(keyType); }

    @Override
    public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) { return choose(keyType); }

    @Override
    public String[] getServerAliases(String keyType, Principal[] issuers) {
        String alias = choose(keyType);
        return alias == null ? null : new String[] {alias};
    }

    @Override
    public X509Certificate[] getCertificateChain(String alias) {
        ServingPair p = pair(alias);
        return p == null ? null : p.chain().toArray(new X509Certificate[0]);
    }

    @Override
    public PrivateKey getPrivateKey(String alias) {
        ServingPair p = pair(alias);
        return p == null ? null : p.key();
    }

    // A server key manager: ACE presents no client certificate with it.
    @Override
    public String[] getClientAliases(String keyType, Principal[] issuers) { return null; }

    @Override
    public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) { return null; }

    @Override
    public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) { return null; }
}
