package dev.ace.binpacker.cli;

import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** The agent's image is small because its class path is: no Quarkus, no webhook, no simulator, no OR-Tools. */
class AgentClassPathTest {
    private static void absent(String className) {
        assertThrows(ClassNotFoundException.class, () -> Class.forName(className, false, AgentClassPathTest.class.getClassLoader()),
                className + " is on the agent's class path");
    }

    @Test
    void the_agent_runs_without_quarkus_the_webhook_or_the_simulator() {
        absent("io.quarkus.runtime.Quarkus");
        absent("dev.ace.binpacker.admission.AdmissionEngine");
        absent("dev.ace.binpacker.cluster.controller.ControlLoop");
        absent("dev.ace.binpacker.sim.ProtocolA");
        absent("com.google.ortools.Loader");
    }
}
