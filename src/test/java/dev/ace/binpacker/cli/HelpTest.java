package dev.ace.binpacker.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The command line a person expects: help everywhere, never a server start by accident, documented exit codes. */
class HelpTest {
    private static ExplainCommandTest.Run main(String... args) { return ExplainCommandTest.main(null, args); }

    @Test
    void help_dash_h_and_dash_dash_help_print_every_command_and_the_exit_codes() {
        for (String flag : new String[] {"help", "-h", "--help"}) {
            ExplainCommandTest.Run r = main(flag);
            assertEquals(0, r.code(), flag);
            for (String c : Help.names()) assertTrue(r.out().contains("\n  " + c + " "), flag + " lists " + c + ":\n" + r.out());
            assertTrue(r.out().contains("exit codes: 0 success, 1 unreadable or invalid input, 2 usage error"), r.out());
        }
    }

    @Test
    void every_command_answers_help_command_and_command_dash_dash_help_with_its_usage() {
        for (String c : Help.names()) {
            ExplainCommandTest.Run a = main("help", c);
            ExplainCommandTest.Run b = main(c, "--help");
            ExplainCommandTest.Run d = main(c, "-h");
            assertEquals(0, a.code(), c);
            assertTrue(a.out().startsWith("usage: " + c), a.out());
            assertTrue(a.out().contains("exit") || c.equals("serve"), c + " documents its exit codes:\n" + a.out());
            assertEquals(a.out(), b.out(), c);
            assertEquals(a.out(), d.out(), c);
        }
    }

    @Test
    void serve_help_describes_both_modes_instead_of_starting_the_server() {
        ExplainCommandTest.Run r = main("serve", "--help");
        assertEquals(0, r.code());
        assertTrue(r.out().contains("standalone mode  everywhere else, even where a kubeconfig exists"), r.out());
        assertTrue(r.out().contains("--kubeconfig FILE"), r.out());
    }

    @Test
    void unknown_commands_and_unknown_help_topics_exit_2() {
        ExplainCommandTest.Run r = main("frobnicate");
        assertEquals(2, r.code());
        assertTrue(r.err().startsWith("unknown command 'frobnicate'\ncommands: serve, explain, nodes"), r.err());
        assertEquals(2, main("help", "frobnicate").code());
    }

    @Test
    void serve_options_are_checked_before_anything_starts() {
        CliException bogus = org.junit.jupiter.api.Assertions.assertThrows(CliException.class, () -> ServeOptions.apply(new String[] {"--bogus"}));
        assertEquals(2, bogus.exitCode());
        CliException missing = org.junit.jupiter.api.Assertions.assertThrows(CliException.class,
                () -> ServeOptions.apply(new String[] {"--kubeconfig", "/no/such/kubeconfig"}));
        assertEquals("--kubeconfig /no/such/kubeconfig: no such file", missing.getMessage());
        CliException both = org.junit.jupiter.api.Assertions.assertThrows(CliException.class,
                () -> ServeOptions.apply(new String[] {"--cluster", "--standalone"}));
        assertEquals(2, both.exitCode());
    }

    @Test
    void agent_help_lists_exactly_the_options_the_agent_accepts_each_with_a_line_of_its_own() {
        ExplainCommandTest.Run r = main("agent", "--help");
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
