package dev.ace.binpacker.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Every option the webhook jar's commands parse is in that command's {@code --help} and in docs/cli.md, and every
 * repository path a help text names exists (the simulator's and the agent's jars check theirs in their modules).
 */
class HelpDriftWebhookTest {
    private static final Path CLI = Path.of("webhook/src/main/java/dev/ace/binpacker/cli");
    /** The source that parses each command's options. */
    private static final Map<String, Path> PARSERS = Map.of(
            "serve", CLI.resolve("ServeOptions.java"),
            "explain", CLI.resolve("ExplainCommand.java"),
            "nodes", CLI.resolve("NodesCommand.java"),
            "topology", CLI.resolve("TopologyCommand.java"));

    @Test
    void every_parsed_option_is_in_the_commands_help_and_in_docs_cli_md() {
        for (var e : PARSERS.entrySet()) {
            Set<String> parsed = HelpDrift.parsedOptions(e.getValue());
            assertFalse(parsed.isEmpty(), e.getValue() + " parses no option the check can see");
            assertEquals(Set.of(), HelpDrift.missing(parsed, Help.find(e.getKey()).help()), e.getKey() + " --help lacks them");
            assertEquals(Set.of(), HelpDrift.missing(parsed, HelpDrift.cliDoc(e.getKey())), "docs/cli.md on " + e.getKey() + " lacks them");
        }
    }

    @Test
    void every_repository_path_a_help_text_names_exists() {
        ByteArrayOutputStream overview = new ByteArrayOutputStream();
        Help.overview(new PrintStream(overview, true, StandardCharsets.UTF_8));
        assertEquals(Set.of(), HelpDrift.missingRepositoryPaths(overview.toString(StandardCharsets.UTF_8)), "help");
        for (Help.Entry e : Help.ENTRIES) assertEquals(Set.of(), HelpDrift.missingRepositoryPaths(e.help()), "help " + e.name());
    }
}
