package dev.ace.binpacker.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The answer docs/webhook.md shows for {@code k8s/demo/review-tp4.json}, base64 and decoded, is the answer the
 * server gives: the {@code tp4} golden response (which AdmissionGoldenTest holds to the running server), reservation
 * ids aside. Regenerate the line with the curl command above it when the golden changes.
 */
class WebhookDocAnswerTest {
    private static final Path DOC = Path.of("docs/webhook.md");

    @Test
    void the_documented_tp4_answer_is_the_golden_answer_base64_and_decoded() throws Exception {
        String doc = Files.readString(DOC);
        Matcher line = Pattern.compile("The real answer[^\\n]*\\n\\n```json\\n([^\\n]+)\\n```").matcher(doc);
        assertTrue(line.find(), "docs/webhook.md shows the real answer");
        ObjectNode answer = (ObjectNode) Https.MAPPER.readTree(line.group(1));
        JsonNode patch = Https.MAPPER.readTree(Base64.getDecoder().decode(answer.at("/response/patch").asText()));
        ((ObjectNode) answer.path("response")).set("patch", patch);
        JsonNode golden = Https.file(Path.of("tests/admission/responses/tp4.json"));
        assertEquals(golden, GoldenFiles.withoutRandomIds(answer), "docs/webhook.md's base64 answer");

        Matcher decoded = Pattern.compile("The patch decoded[^\\n]*\\n\\n```json\\n(.+?)\\n```", Pattern.DOTALL).matcher(doc);
        assertTrue(decoded.find(), "docs/webhook.md shows the patch decoded");
        assertEquals(patch, Https.MAPPER.readTree(decoded.group(1)), "the decoded patch is the base64 one, same reservation id");
    }
}
