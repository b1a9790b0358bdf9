package dev.ace.binpacker.web;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;

/** Compares a response with its golden file as JSON trees; {@code -Dgolden.update=true} rewrites the file instead. */
public final class GoldenFiles {
    /** What a random reservation id reads as in a golden file. */
    static final String RANDOM_ID = "<random>";
    private static final java.util.regex.Pattern UUID =
            java.util.regex.Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

    private GoldenFiles() {}

    /**
     * The response with every {@code ace.dev/reservation} id replaced by {@link #RANDOM_ID}: ids are random per
     * admission (unguessable), so a golden file cannot hold one. Only a UUID is replaced: anything else is a bug to see.
     */
    public static JsonNode withoutRandomIds(JsonNode response) {
        JsonNode copy = response.deepCopy();
        scrub(copy);
        return copy;
    }

    private static void scrub(JsonNode n) {
        if (n instanceof com.fasterxml.jackson.databind.node.ObjectNode o) {
            var names = new java.util.ArrayList<String>();
            o.fieldNames().forEachRemaining(names::add);
            for (String k : names) {
                JsonNode v = o.get(k);
                if (v.isTextual() && (k.equals(dev.ace.binpacker.keys.AceKeys.RESERVATION) || isReservationOp(o, k))) o.put(k, scrubbed(v.asText()));
                else scrub(v);
            }
        } else if (n.isArray()) {
            n.forEach(GoldenFiles::scrub);
        }
    }

    private static boolean isReservationOp(com.fasterxml.jackson.databind.node.ObjectNode op, String field) {
        return field.equals("value") && op.path("path").asText().endsWith(dev.ace.binpacker.admission.JsonPatch.escape(dev.ace.binpacker.keys.AceKeys.RESERVATION));
    }

    private static String scrubbed(String json) {
        try {
            var tree = (com.fasterxml.jackson.databind.node.ObjectNode) Https.MAPPER.readTree(json);
            if (UUID.matcher(tree.path("id").asText()).matches()) tree.put("id", RANDOM_ID);
            return tree.toString();
        } catch (java.io.IOException e) {
            return json;
        }
    }

    static void assertGolden(Path golden, JsonNode actual) {
        try {
            if (Boolean.getBoolean("golden.update")) {
                Files.createDirectories(golden.getParent());
                Files.writeString(golden, Https.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(actual) + "\n");
                return;
            }
            if (!Files.exists(golden)) throw new AssertionError(golden + " is missing; run with -Dgolden.update=true and review the diff");
            JsonNode expected = Https.file(golden);
            if (!expected.equals(actual)) { // tree equality: key order and formatting do not matter
                assertEquals(Https.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(expected),
                        Https.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(actual), "golden " + golden);
            }
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
    }
}
