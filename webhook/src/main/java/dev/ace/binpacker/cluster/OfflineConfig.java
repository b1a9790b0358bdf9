package dev.ace.binpacker.cluster;

import io.quarkus.runtime.configuration.DurationConverter;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URL;
import java.time.Duration;
import java.util.Map;

/**
 * {@link AceConfig} for the commands that start no Quarkus ({@code explain}): read as {@code serve} reads it, from the
 * packaged {@code application.properties} (ordinal 250, as Quarkus gives it), then environment variables
 * ({@code ACE_POLICY_RESERVE_FREE8_CLIQUES}, 300) and system properties ({@code -Dace.policy...}, 400) over it.
 * Profile-qualified keys ({@code %test.}) are ignored, as in a packaged {@code serve}.
 */
public final class OfflineConfig {
    private OfflineConfig() {}

    public static AceConfig load() { return load(Map.of()); }

    /** With {@code overrides} above every other source. */
    public static AceConfig load(Map<String, String> overrides) { return load(overrides, true); }

    /**
     * The packaged settings and {@code overrides} only, without environment variables and system properties: what a
     * test builds its wiring from, so that a setting another test of the same JVM left in the system properties (a
     * Quarkus test profile's overrides stay there) cannot change it.
     */
    public static AceConfig packaged(Map<String, String> overrides) { return load(overrides, false); }

    /** The packaged settings alone (see {@link #packaged(Map)}). */
    public static AceConfig packaged() { return packaged(Map.of()); }

    private static AceConfig load(Map<String, String> overrides, boolean environment) {
        SmallRyeConfigBuilder b = new SmallRyeConfigBuilder();
        if (environment) b.addDefaultSources();
        b.withConverter(Duration.class, 100, new DurationConverter())
                .withMapping(AceConfig.class)
                .withValidateUnknown(false);
        URL props = OfflineConfig.class.getResource("/application.properties");
        if (props != null) {
            try {
                b.withSources(new PropertiesConfigSource(props, 250));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + props, e);
            }
        }
        if (!overrides.isEmpty()) b.withSources(new PropertiesConfigSource(overrides, "overrides", 500));
        return b.build().getConfigMapping(AceConfig.class);
    }
}
