package dev.ace.binpacker.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** $(VAR) expansion as the kubelet does it, and bounded for what a tenant can write into env and args. */
class EnvExpansionTest {
    private static Container container(List<EnvVar> env, String... args) {
        return new ContainerBuilder().withName("c").withEnv(env).withArgs(args).build();
    }

    @Test
    void lws_variables_read_as_the_number_the_process_sees() {
        Container c = container(List.of(new EnvVar("LWS_GROUP_SIZE", "4", null)), "--nnodes", "$(LWS_GROUP_SIZE)", "$$(LWS_GROUP_SIZE)");
        assertEquals(List.of("--nnodes", "4", "$(LWS_GROUP_SIZE)"), EnvExpansion.expand(c).getArgs());
        assertEquals(List.of("--nnodes", "$(LWS_GROUP_SIZE)", "$$(LWS_GROUP_SIZE)"), c.getArgs(), "the pod itself is untouched");
    }

    @Test
    void an_unknown_name_and_an_unclosed_reference_stay_as_written() {
        Map<String, String> env = Map.of("A", "x");
        assertEquals("$(B)-x-$(A", EnvExpansion.expand("$(B)-$(A)-$(A", env));
        assertEquals("a$", EnvExpansion.expand("a$", env));
    }

    @Test
    void a_container_without_env_or_references_is_returned_as_it_is() {
        Container c = container(List.of(), "vllm", "serve");
        assertSame(c, EnvExpansion.expand(c));
    }

    @Test
    void variables_that_double_each_other_stop_at_the_command_line_reader_limit() {
        List<EnvVar> env = new ArrayList<>();
        env.add(new EnvVar("V0", "x".repeat(1024), null));
        for (int i = 1; i <= 60; i++) env.add(new EnvVar("V" + i, "$(V" + (i - 1) + ")$(V" + (i - 1) + ")", null)); // 2^60 KiB unbounded
        String out = EnvExpansion.expand(container(env, "$(V60)")).getArgs().get(0);
        assertEquals(CommandLine.MAX_CHARS, out.length());
    }

    @Test
    void many_unclosed_references_are_read_in_one_pass_and_clipped() {
        String s = "$(".repeat(500_000) + ")"; // one ')' at the end: a rescan per '$(' would be quadratic
        String out = EnvExpansion.expand(s, Map.of());
        assertEquals(CommandLine.MAX_CHARS, out.length());
        assertTrue(out.startsWith("$($($("));
    }

    @Test
    void only_the_first_variables_up_to_the_cap_are_read() {
        List<EnvVar> env = new ArrayList<>();
        for (int i = 0; i < CommandLine.MAX_ENV; i++) env.add(new EnvVar("F" + i, "f", null));
        env.add(new EnvVar("LATE", "late", null));
        assertEquals(List.of("f", "$(LATE)"), EnvExpansion.expand(container(env, "$(F0)", "$(LATE)")).getArgs());
    }
}
