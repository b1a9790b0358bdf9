package dev.ace.binpacker.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import org.junit.jupiter.api.Test;

/** The parts of the help-drift check the jars' tests share find what they claim to find. */
class HelpDriftTest {
    @Test
    void options_are_read_from_case_labels_and_equals_tests_but_the_help_words() {
        String java = """
                switch (args[i]) {
                    case "-f", "--file" -> file = args[++i];
                    case "--json" -> json = true;
                    case "-h", "--help" -> help = true;
                    case "value" -> x();
                }
                if (a.equals("--kubeconfig")) y();
                else if (a.startsWith("--nodes=")) z();
                String s = "--not-an-option";
                """;
        assertEquals(Set.of("-f", "--file", "--json", "--kubeconfig", "--nodes"), HelpDrift.parsedOptionsOf(java));
    }

    @Test
    void an_option_is_named_only_as_a_word_of_its_own() {
        Set<String> options = Set.of("--seed", "--seeds", "--hgx", "-f");
        assertEquals(Set.of("--seed", "--hgx"), HelpDrift.missing(options, "--seeds 42-51\n-f, --file FILE\n--hgx-boards"));
    }

    @Test
    void a_missing_repository_path_is_found_and_build_output_and_absolute_paths_are_not() {
        assertEquals(Set.of("deploy/agent/Dockerfile"), HelpDrift.missingRepositoryPaths(
                "docs/cli.md, deploy/agent/Dockerfile, sim/target/ace-sim.jar, /var/lib/kubelet/config.yaml, ~/.kube/config"));
    }

    @Test
    void the_cli_doc_of_a_command_is_its_table_row_and_its_sections() {
        String serve = HelpDrift.cliDoc("serve");
        assertTrue(serve.contains("--standalone"), serve);
        assertTrue(!serve.contains("nvidia-smi topo -m` output"), serve);
    }
}
