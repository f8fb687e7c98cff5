package io.timedjobs.scheduler.jdbc.durable;

import java.util.Objects;
import tools.jackson.core.JacksonException;
import tools.jackson.core.TokenStreamLocation;
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
            // Jackson's own message may quote the payload, which then lands in logs and last_error
            throw new IllegalArgumentException("Cannot read a payload as " + type.getName() + ": " + reason(e));
        }
    }

    /** Says where the text is not a {@code type}, without quoting it: the error, the path, the line. */
    private static String reason(JacksonException e) {
        StringBuilder reason = new StringBuilder(e.getClass().getSimpleName());
        String path = e.getPathReference();
        if (path != null && !path.isEmpty()) {
            reason.append(" at ").append(path);
        }
        TokenStreamLocation location = e.getLocation();
        if (location != null && location.getLineNr() > 0) {
            reason.append(", line ")
                    .append(location.getLineNr())
                    .append(", column ")
                    .append(location.getColumnNr());
        }
        return reason.toString();
    }
}
