package dev.ace.binpacker.web;

import jakarta.enterprise.context.ApplicationScoped;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * Marks the warm-up's own reviews (issue 18: they showed up in the admission and placement metrics after every
 * restart), one request at a time rather than by a "warming up" switch that would also hide a real review arriving
 * meanwhile. The warm-up sends header {@value #HEADER} with a random secret made at start; only a request carrying
 * exactly that value is kept out of the metrics, so a caller cannot hide its reviews by naming itself "warm-up".
 */
@ApplicationScoped
public class WarmUpMark {
    public static final String HEADER = "X-Ace-Warm-Up";

    private final String secret;

    public WarmUpMark() {
        byte[] b = new byte[32];
        new SecureRandom().nextBytes(b);
        secret = Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }

    /** The value the warm-up sends. */
    String value() { return secret; }

    /** True only for this replica's own warm-up (constant-time comparison). */
    public boolean isWarmUp(String header) {
        return header != null && MessageDigest.isEqual(header.getBytes(StandardCharsets.UTF_8), secret.getBytes(StandardCharsets.UTF_8));
    }
}
