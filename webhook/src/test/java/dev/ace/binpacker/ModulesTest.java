package dev.ace.binpacker;

import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/**
 * The webhook's image carries only the webhook (docs/architecture.md, "The modules"): neither the simulator nor
 * OR-Tools is on its class path, so a dependency that brought them back would fail here, not in the image's size.
 */
class ModulesTest {
    private static void absent(String className) {
        assertThrows(ClassNotFoundException.class, () -> Class.forName(className, false, ModulesTest.class.getClassLoader()),
                className + " is on the webhook's class path");
    }

    @Test
    void the_simulator_and_or_tools_are_not_on_the_webhooks_class_path() {
        absent("dev.ace.binpacker.sim.ProtocolA");
        absent("dev.ace.binpacker.cli.SimulateCommand");
        absent("com.google.ortools.Loader");
        absent("com.google.ortools.sat.CpSolver");
    }
}
