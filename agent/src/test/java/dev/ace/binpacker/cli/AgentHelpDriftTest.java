package dev.ace.binpacker.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Every option AgentCommand parses is in {@code agent --help} and in docs/cli.md; every path its help names exists. */
class AgentHelpDriftTest {
    private static final Path SOURCE = Path.of("agent/src/main/java/dev/ace/binpacker/cli/AgentCommand.java");

    @Test
    void every_parsed_option_is_in_the_help_and_in_docs_cli_md() {
        Set<String> parsed = HelpDrift.parsedOptions(SOURCE);
        assertTrue(parsed.containsAll(Set.of("--node", "--once", "--kubelet-config")), parsed.toString());
        assertEquals(Set.of(), HelpDrift.missing(parsed, AgentCommand.HELP.text()), "agent --help lacks them");
        assertEquals(Set.of(), HelpDrift.missing(parsed, HelpDrift.cliDoc("agent")), "docs/cli.md's agent section lacks them");
    }

    @Test
    void every_repository_path_the_help_names_exists() {
        assertEquals(Set.of(), HelpDrift.missingRepositoryPaths(AgentCommand.HELP.text()));
    }
}
