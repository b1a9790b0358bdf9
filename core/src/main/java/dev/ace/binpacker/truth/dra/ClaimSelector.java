package dev.ace.binpacker.truth.dra;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The CEL selector of a claim that names exactly the GPUs ACE reserved: {@code device.driver == '<driver>' &&
 * device.attributes['<driver>'].uuid in ['GPU-...', ...]}, for a device request of {@code count} = the number of
 * UUIDs. The UUID is the attribute the NVIDIA driver publishes for every whole GPU ({@code GpuInfo.Attributes} in
 * {@code cmd/gpu-kubelet-plugin/deviceinfo.go}); it has published no {@code index} since 2025. Everything that goes
 * into the expression is checked first (a ResourceSlice is written by a node's driver, not by ACE): a UUID of another
 * shape, or a driver name that is not a DNS subdomain, is refused, so no slice can inject CEL into ACE's claims.
 */
public record ClaimSelector(String driver, List<String> uuids) {
    private static final Pattern DNS_SUBDOMAIN = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
    private static final Pattern GPU_UUID = Pattern.compile("GPU-[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}");

    public ClaimSelector {
        Objects.requireNonNull(driver, "driver");
        if (driver.length() > 253 || !DNS_SUBDOMAIN.matcher(driver).matches()) {
            throw new IllegalArgumentException("driver '" + driver + "' is not a DNS subdomain");
        }
        if (uuids == null || uuids.isEmpty()) throw new IllegalArgumentException("a claim names at least one GPU");
        for (String u : uuids) {
            if (u == null || !GPU_UUID.matcher(u).matches()) throw new IllegalArgumentException("'" + u + "' is not a GPU UUID (GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)");
        }
        if (new LinkedHashSet<>(uuids).size() != uuids.size()) throw new IllegalArgumentException("GPU named twice in " + uuids);
        uuids = List.copyOf(uuids);
    }

    /** The selector for these devices (whole GPUs of one node, each with a UUID). */
    public static ClaimSelector of(String driver, List<DraDevice> devices) {
        List<String> u = new ArrayList<>();
        for (DraDevice d : devices) {
            if (d.kind() != DraDevice.Kind.GPU) throw new IllegalArgumentException("device " + d.name() + " is not a whole GPU");
            u.add(d.uuid());
        }
        return new ClaimSelector(driver, u);
    }

    /** How many devices the request asks for: exactly the GPUs named. */
    public long count() { return uuids.size(); }

    public String expression() {
        StringBuilder b = new StringBuilder("device.driver == '").append(driver).append("' && device.attributes['")
                .append(driver).append("'].uuid in [");
        for (int i = 0; i < uuids.size(); i++) b.append(i == 0 ? "'" : ", '").append(uuids.get(i)).append('\'');
        return b.append(']').toString();
    }
}
