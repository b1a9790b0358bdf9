package dev.ace.binpacker.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.topology.TopologyManagerPolicy;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class AgentOptionsTest {
    @Test
    @DisplayName("Defaults are the DaemonSet's: kubelet socket and config at their standard paths, nvidia-smi on PATH")
    void defaults() {
        AgentCommand.Options o = AgentCommand.Options.parse(new String[0], "gpu-1");
        assertEquals("gpu-1", o.node());
        assertEquals(Path.of("/var/lib/kubelet/pod-resources/kubelet.sock"), o.socket());
        assertEquals(List.of("nvidia-smi", "topo", "-m"), o.topologyCommand());
        assertTrue(o.podResources());
        assertEquals(Duration.ofSeconds(10), o.reportInterval());
    }

    @Test
    @DisplayName("--nvidia-smi replaces the program for every query; --topology-manager-policy wins over the kubelet config")
    void options() throws Exception {
        AgentCommand.Options o = AgentCommand.Options.parse(new String[] {"--nvidia-smi", "/opt/fake-smi", "--pod-resources-socket", "/tmp/k.sock",
                "--topology-manager-policy", "restricted", "--kubelet-config", "/nonexistent", "--command-timeout", "5s", "--once"}, null);
        assertEquals(List.of("/opt/fake-smi", "topo", "-m"), o.topologyCommand());
        assertEquals(Path.of("/tmp/k.sock"), o.socket());
        assertEquals(Optional.of(TopologyManagerPolicy.RESTRICTED), o.policySource().read());
        assertEquals(Duration.ofSeconds(5), o.timeout());
        assertTrue(o.once());
        assertEquals(Optional.empty(), AgentCommand.Options.parse(new String[] {"--kubelet-config", "/nonexistent"}, "n").policySource().read());
        assertFalse(AgentCommand.Options.parse(new String[] {"--no-pod-resources"}, "n").podResources());
    }

    @Test
    @DisplayName("An unknown option or policy is refused with the usage, exit code 2")
    void refusesUnknown() throws Exception {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertEquals(2, new AgentCommand().run(new String[] {"--topology-manager-policy", "strict"}, System.out, new PrintStream(err)));
        assertTrue(err.toString().contains("usage: agent"), err.toString());
        assertThrows(IllegalArgumentException.class, () -> AgentCommand.Options.parse(new String[] {"--bogus"}, "n"));
    }
}
