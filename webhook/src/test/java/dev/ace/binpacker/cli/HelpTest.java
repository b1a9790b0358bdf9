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
    void simulate_and_agent_say_which_jar_runs_them_and_refuse_to_run_from_the_webhooks() {
        for (String c : new String[] {"simulate", "agent"}) {
            ExplainCommandTest.Run help = main("help", c);
            assertTrue(help.out().contains("bin/ace " + c), help.out());
            ExplainCommandTest.Run r = main(c, "--trace", "fleet");
            assertEquals(2, r.code(), c);
            assertTrue(r.err().startsWith(c + ": not in the webhook's jar; "), r.err());
            assertTrue(r.err().contains("java -jar " + c.replace("simulate", "sim") + "/target/ace-" + c.replace("simulate", "sim") + ".jar " + c), r.err());
        }
    }
}
