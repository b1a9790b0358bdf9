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
}
