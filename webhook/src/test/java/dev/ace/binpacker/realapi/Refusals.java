package dev.ace.binpacker.realapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.fabric8.kubernetes.client.KubernetesClientException;

/** What the API server answered to a write: refused (the status code and message), or accepted. */
public final class Refusals {
    private Refusals() {}

    /** Runs {@code write}; fails unless the API server refused it with {@code code} and a message containing {@code expected}. */
    public static String refused(int code, String expected, Runnable write) {
        try {
            write.run();
        } catch (KubernetesClientException e) {
            String msg = e.getStatus() != null && e.getStatus().getMessage() != null ? e.getStatus().getMessage() : e.getMessage();
            assertEquals(code, e.getCode(), msg);
            assertTrue(msg.contains(expected), "expected a refusal containing '" + expected + "', got: " + msg);
            return msg;
        }
        fail("the API server accepted what should be refused (" + expected + ")");
        return null;
    }
}
