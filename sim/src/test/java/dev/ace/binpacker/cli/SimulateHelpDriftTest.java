package dev.ace.binpacker.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Every option SimulateCommand parses is in {@code simulate --help} and in docs/cli.md; every path its help names exists. */
class SimulateHelpDriftTest {
    private static final Path SOURCE = Path.of("sim/src/main/java/dev/ace/binpacker/cli/SimulateCommand.java");

    @Test
    void every_parsed_option_is_in_the_help_and_in_docs_cli_md() {
        Set<String> parsed = HelpDrift.parsedOptions(SOURCE);
        assertTrue(parsed.containsAll(Set.of("--trace", "--wait-bound", "--hgx", "--time-limit", "--planner-window")), parsed.toString());
        assertEquals(Set.of(), HelpDrift.missing(parsed, SimulateCommand.HELP.text()), "simulate --help lacks them");
        assertEquals(Set.of(), HelpDrift.missing(parsed, HelpDrift.cliDoc("simulate")), "docs/cli.md's simulate section lacks them");
    }

    @Test
    void every_repository_path_the_help_names_exists() {
        assertEquals(Set.of(), HelpDrift.missingRepositoryPaths(SimulateCommand.HELP.text()));
    }
}
