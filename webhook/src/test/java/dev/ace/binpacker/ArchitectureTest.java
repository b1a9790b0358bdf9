package dev.ace.binpacker;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The decision core stays plain Java: {@code topology} and {@code placement} are driven by unit
 * tests in microseconds and reused by the CLI and simulator, so they may not pull in the framework,
 * the Kubernetes client, metrics or JSON binding.
 */
@AnalyzeClasses(packages = "dev.ace.binpacker", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

    @ArchTest
    static final ArchRule pure_core_uses_only_the_jdk = noClasses()
            .that().resideInAnyPackage("..topology..", "..placement..", "..truth..")
            .should().dependOnClassesThat().resideInAnyPackage(
                    "io.quarkus..", "io.fabric8..", "io.micrometer..", "jakarta..", "javax.enterprise..", "com.fasterxml..")
            .because("topology, placement and truth (node reports, reconciliation) are pure JDK (DESIGN.md: thin edge, fat pure core)");

    @ArchTest
    static final ArchRule topology_does_not_know_placement = noClasses()
            .that().resideInAPackage("..topology..")
            .should().dependOnClassesThat().resideInAPackage("..placement..")
            .because("placement builds on topology, never the other way round");

    @ArchTest
    static final ArchRule keys_are_a_leaf = noClasses()
            .that().resideInAPackage("dev.ace.binpacker.keys..")
            .should().dependOnClassesThat().resideInAnyPackage("dev.ace.binpacker", "dev.ace.binpacker.admission..",
                    "dev.ace.binpacker.cli..", "dev.ace.binpacker.cluster..", "dev.ace.binpacker.observability..",
                    "dev.ace.binpacker.placement..", "dev.ace.binpacker.sim..", "dev.ace.binpacker.topology..",
                    "dev.ace.binpacker.truth..", "dev.ace.binpacker.web..", "dev.ace.binpacker.workload..")
            .because("every label, annotation, gate and CRD name is a constant in dev.ace.binpacker.keys, which any room may read");

    // The cluster rooms (docs/architecture.md section 2). Only the composition root, dev.ace.binpacker.cluster
    // itself, wires them together; each room below may use only the rooms named.
    private static final String ROOT = "dev.ace.binpacker.cluster";

    @ArchTest
    static final ArchRule no_room_reaches_back_into_the_composition_root = noClasses()
            .that().resideInAnyPackage(ROOT + ".ledger..", ROOT + ".report..", ROOT + ".node..", ROOT + ".pod..",
                    ROOT + ".dra..", ROOT + ".view..", ROOT + ".controller..", ROOT + ".agent..")
            .should().dependOnClassesThat().resideInAPackage(ROOT)
            .because("the composition root builds the rooms; a room that read its configuration or wiring back would make a cycle");

    @ArchTest
    static final ArchRule leaf_rooms_stand_alone = noClasses()
            .that().resideInAnyPackage(ROOT + ".ledger..", ROOT + ".report..", ROOT + ".node..", ROOT + ".pod..", ROOT + ".dra..")
            .should().dependOnClassesThat().resideInAnyPackage(ROOT + ".view..", ROOT + ".controller..", ROOT + ".agent..")
            .because("the ledger store, the node report object, what ACE reads from Nodes and writes onto Pods, and the DRA translator and claim renderer are leaves");

    @ArchTest
    static final ArchRule the_view_does_not_act = noClasses()
            .that().resideInAPackage(ROOT + ".view..")
            .should().dependOnClassesThat().resideInAnyPackage(ROOT + ".controller..", ROOT + ".agent..")
            .because("the informers' view only applies what it is told; acting on it is the controller's job");

    @ArchTest
    static final ArchRule the_agent_shares_only_the_report = noClasses()
            .that().resideInAPackage(ROOT + ".agent..")
            .should().dependOnClassesThat().resideInAnyPackage(ROOT + ".ledger..", ROOT + ".node..", ROOT + ".pod..",
                    ROOT + ".view..", ROOT + ".controller..", "dev.ace.binpacker.admission..", "dev.ace.binpacker.web..")
            .because("the node agent runs on every GPU node with a narrow RBAC: it writes its GpuNodeReport and nothing of the webhook");

    @ArchTest
    static final ArchRule the_controller_is_not_the_agent = noClasses()
            .that().resideInAPackage(ROOT + ".controller..")
            .should().dependOnClassesThat().resideInAPackage(ROOT + ".agent..")
            .because("the leader reads node reports through the view, never by running the agent");
}
