package dev.ace.binpacker.web;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;

/** Compares a response with its golden file as JSON trees; {@code -Dgolden.update=true} rewrites the file instead. */
final class GoldenFiles {
    private GoldenFiles() {}

    static void assertGolden(Path golden, JsonNode actual) {
        try {
            if (Boolean.getBoolean("golden.update")) {
                Files.createDirectories(golden.getParent());
                Files.writeString(golden, Https.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(actual) + "\n");
                return;
            }
            if (!Files.exists(golden)) throw new AssertionError(golden + " is missing; run with -Dgolden.update=true and review the diff");
            JsonNode expected = Https.file(golden);
            assertEquals(Https.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(expected),
                    Https.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(actual), "golden " + golden);
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
    }
}
