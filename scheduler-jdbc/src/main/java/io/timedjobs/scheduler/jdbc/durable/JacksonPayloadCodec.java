package io.timedjobs.scheduler.jdbc.durable;

import java.util.Objects;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.ObjectMapper;

/**
 * Thread-safe, as its mapper is. Payloads as JSON through a Jackson 3 {@link ObjectMapper} (Spring Boot
 * 4's {@code JsonMapper} bean).
 *
 * <p><b>NOTE:</b> values are read only as the handler's declared type. A mapper configured with
 * default typing would still honour type ids inside the JSON; do not give one to this codec.
 */
public final class JacksonPayloadCodec implements PayloadCodec {

    private final ObjectMapper mapper;

    /** Wraps the application's mapper. */
    public JacksonPayloadCodec(ObjectMapper mapper) {
        this.mapper = Objects.requireNonNull(mapper, "mapper");
    }

    @Override
    public String write(Object value) {
        try {
            return mapper.writeValueAsString(value);
        } catch (JacksonException e) {
            throw new IllegalArgumentException(
                    "Cannot write a " + value.getClass().getName() + " payload as JSON: " + e.getOriginalMessage(), e);
        }
    }

    @Override
    public <T> T read(String text, Class<T> type) {
        try {
            return mapper.readValue(text, type);
        } catch (JacksonException e) {
            throw new IllegalArgumentException(
                    "Cannot read a payload as " + type.getName() + ": " + e.getOriginalMessage(), e);
        }
    }
}
