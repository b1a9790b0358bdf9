package dev.ace.binpacker.realapi;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Marks a scenario class of the real-API suite: its tests get a {@link RealCluster} (started once per JVM)
 * and, per test, a {@link TestNamespace} (created before, deleted after), as parameters. Without the
 * control-plane binaries the class is skipped with the reason, or fails in CI ({@link KubeBinaries#required()}).
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(RealApiExtension.class)
public @interface RealApiTest {}
