package dev.ace.binpacker.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The agent's jar answers help as every ACE command does, and its help documents exactly the options it takes. */
class AgentHelpTest {
    record Run(int code, String out, String err) {}

    private static Run main(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Tool.runOnly(AgentCommand.HELP, AgentCommand::new, args,
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void help_agent_help_and_dash_h_print_the_same_text_with_the_exit_codes() {
        Run a = main("help");
        assertEquals(0, a.code());
        assertTrue(a.out().startsWith("usage: agent"), a.out());
        assertTrue(a.out().contains("exit: 0 written (--once)"), a.out());
        assertEquals(a.out(), main("agent", "--help").out());
        assertEquals(a.out(), main("-h").out());
    }

    @Test
    void an_unknown_option_is_a_usage_error_that_prints_the_usage_line() {
        Run r = main("agent", "--bogus");
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains(AgentCommand.USAGE), r.err());
    }

    @Test
    void agent_help_lists_exactly_the_options_the_agent_accepts_each_with_a_line_of_its_own() {
        Run r = main("agent", "--help");
        assertEquals(0, r.code());
        assertTrue(r.out().startsWith(AgentCommand.USAGE + "\n"), "the usage line the agent prints on a usage error:\n" + r.out());
        java.util.Set<String> inUsage = options(AgentCommand.USAGE);
        java.util.Set<String> described = new java.util.TreeSet<>();
        for (String line : r.out().split("\n")) {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("^\\s+(--[a-z-]+)").matcher(line);
            if (m.find()) described.add(m.group(1));
        }
        assertEquals(inUsage, described, "every option in the usage line is described, and nothing else");
        for (String option : inUsage) {
            String[] args = switch (option) {
                case "--once", "--no-pod-resources" -> new String[] {option};
                case "--topology-manager-policy" -> new String[] {option, "restricted"};
                case "--interval", "--report-interval", "--command-timeout" -> new String[] {option, "10s"};
                default -> new String[] {option, "x"};
            };
            AgentCommand.Options.parse(args, "n");    // throws for an option the agent does not know
        }
        assertTrue(inUsage.containsAll(java.util.List.of("--kubelet-config", "--pod-resources-socket", "--report-interval",
                "--topology-manager-policy", "--no-pod-resources")), inUsage.toString());
    }

    private static java.util.Set<String> options(String usage) {
        java.util.Set<String> found = new java.util.TreeSet<>();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(--[a-z-]+)").matcher(usage);
        while (m.find()) found.add(m.group(1));
        return found;
    }
}
