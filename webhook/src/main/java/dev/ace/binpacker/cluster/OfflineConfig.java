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

    /** With {@code overrides} above every other source (tests). */
    public static AceConfig load(Map<String, String> overrides) {
        SmallRyeConfigBuilder b = new SmallRyeConfigBuilder()
                .addDefaultSources()
                .withConverter(Duration.class, 100, new DurationConverter())
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
