package dev.ace.binpacker.admission;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;

/** The Jackson mapper for AdmissionReviews and fabric8 models (thread-safe once configured). */
public final class Json {
    private Json() {}

    public static ObjectMapper newMapper() {
        // fabric8 models keep unknown fields in additionalProperties; failing on them would break on newer API fields.
        return new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
    }
}
